// After the signature, before idempotency and the handler: the caller is one the operation answers
// (admitCaller: the read operations' registered IPs, 403), and a merchant's signed body holds only
// fields its operation defines, with well-formed names (4019 otherwise, nothing stored), and card
// numbers typed into free-text fields are masked from here on (src/http/request-fields.ts).
//
// The signature is checked first: a body that is not the merchant's is refused as such (401),
// whatever its shape, and the 400 naming a field goes only to the account that signed the body,
// signed with its key. The hosted page's hand-off post is no merchant request and is not checked.
import type { FastifyInstance } from 'fastify';
import { admitFields, admitNames } from '../request-fields.ts';
import { operationOf } from '../operation.ts';

export function installRequestFields(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const operation = operationOf(request);
    if (!operation || !request.signing) return;
    await operation.admitCaller?.(request.signing.account, request.ip);
    const body = request.body as Record<string, unknown>;
    const schema = typeof operation.schema === 'function' ? operation.schema(body, request.signing.account) : operation.schema;
    // A field sent empty or null is left out of the body, not out of the check: any key the
    // operation does not define is refused, whatever its value (docs/signing.md).
    if (request.sentFields) admitNames(request.sentFields, schema);
    admitFields(body, schema);
  });
}
