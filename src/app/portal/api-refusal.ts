// A use case the merchant API shares refuses with an AppError (a catalogue code); staff see the
// same code and message, beside its field: 400 for a field's bad value, 404 for what is not
// found, 409 for the state of things.
import { AppError } from '../../domain/errors.ts';
import { PortalRefusal } from './refusal.ts';

export async function asRefusal<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const status = error.http === 404 || error.codeName.endsWith('_not_found') ? 404 : error.field ? 400 : 409;
    throw new PortalRefusal(error.info, { ...(error.field ? { field: error.field } : {}), status });
  }
}
