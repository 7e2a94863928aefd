// The per-order status fields of capture, cancel and review answers: `<op>_status` 1 done, 2
// pending at the processor, 0 refused; error_message empty when done, `<code>:<message>` otherwise.
import { codeText, type AppError } from '../../domain/errors.ts';
import { batchStatus } from '../../domain/lifecycle.ts';
import type { Outcome } from '../../app/batch/orders.ts';
import type { Fields } from './run.ts';

export function outcomeFields(statusField: string, outcome: Outcome): Fields {
  const message =
    outcome.status === 'succeeded'
      ? ''
      : outcome.status === 'pending'
        ? codeText('pending')
        : codeText('processor_refused', `refused by the processor${outcome.reason ? `: ${outcome.reason}` : ''}`);
  return { [statusField]: batchStatus(outcome.status), error_message: message };
}

export function refusedFields(statusField: string) {
  return (error: AppError): Fields => ({ [statusField]: '0', error_message: error.info });
}
