// After the signature, before idempotency and the handler: a merchant's signed body holds only
// fields its operation defines, with well-formed names (4019 otherwise, nothing stored), and card
// numbers typed into free-text fields are masked from here on (src/http/request-fields.ts).
//
// The signature is checked first: a body that is not the merchant's is refused as such (401),
// whatever its shape, and the 400 naming a field goes only to the account that signed the body,
// signed with its key. The hosted page's hand-off post is no merchant request and is not checked.
import type { FastifyInstance } from 'fastify';
import { admitFields } from '../request-fields.ts';
import { operationOf } from '../operation.ts';

export function installRequestFields(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const operation = operationOf(request);
    if (!operation || !request.signing) return;
    const body = request.body as Record<string, unknown>;
    admitFields(body, typeof operation.schema === 'function' ? operation.schema(body) : operation.schema);
  });
}
