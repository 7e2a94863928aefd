// Which alternative payment methods an account can offer, and which banks: those its connector
// states (the simulator's sandbox methods in the sandbox; a real connector its acquirer's).
import type { Connectors } from '../context.ts';
import type { ApmMethod, Bank } from '../../connectors/port.ts';
import type { AccountRow } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';

export function methodsOf(connectors: Connectors, account: AccountRow): readonly ApmMethod[] {
  return connectors.get(account.connector)?.paymentMethods?.() ?? [];
}

export function banksOf(connectors: Connectors, account: AccountRow, method: ApmMethod): readonly Bank[] {
  return connectors.get(account.connector)?.banks?.(method.name) ?? [];
}

/** The method `name` names for this account; 4015 when there is none. */
export function methodNamed(connectors: Connectors, account: AccountRow, name: unknown): ApmMethod {
  if (typeof name !== 'string') throw new AppError('invalid_field', 'payment_method is invalid: expected text', { field: 'payment_method' });
  const offered = methodsOf(connectors, account);
  const method = offered.find((candidate) => candidate.name === name);
  if (!method) {
    const names = offered.map((candidate) => candidate.name);
    throw new AppError(
      'unsupported_payment_method',
      `payment_method ${name.slice(0, 32)} is not offered${names.length > 0 ? `: use card fields, or one of ${names.join(', ')}` : ''}`,
      { field: 'payment_method' },
    );
  }
  return method;
}
