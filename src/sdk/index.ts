// What a merchant's Node application imports: the request signature, answer verification, and a
// typed client for the gateway's operations.
export { canonicalString, sign, verify, type SignedBody } from '../domain/signature.ts';
