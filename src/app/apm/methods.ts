// Which alternative payment methods an account can offer: those of its connector. The sandbox
// simulator offers the sandbox methods; a real connector would declare its own here.
import { SANDBOX_METHODS, type ApmMethod } from '../../connectors/simulator/apm.ts';
import type { AccountRow } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';

const BY_CONNECTOR: Readonly<Record<string, readonly ApmMethod[]>> = { simulator: SANDBOX_METHODS };

export function methodsOf(account: AccountRow): readonly ApmMethod[] {
  return BY_CONNECTOR[account.connector] ?? [];
}

/** The method `name` names for this account; 4015 when there is none. */
export function methodNamed(account: AccountRow, name: unknown): ApmMethod {
  if (typeof name !== 'string') throw new AppError('invalid_field', 'payment_method is invalid: expected text', { field: 'payment_method' });
  const method = methodsOf(account).find((candidate) => candidate.name === name);
  if (!method) {
    const offered = methodsOf(account).map((candidate) => candidate.name);
    throw new AppError(
      'unsupported_payment_method',
      `payment_method ${name.slice(0, 32)} is not offered${offered.length > 0 ? `: use card fields, or one of ${offered.join(', ')}` : ''}`,
      { field: 'payment_method' },
    );
  }
  return method;
}
