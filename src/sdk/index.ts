// What a merchant's Node application imports (`acquiro/sdk`): the request signature, answer and
// notification verification, and a typed client for the gateway's operations.
export { canonicalString, sign, verify, type SignedBody } from '../domain/signature.ts';
export { AcquiroClient, AnswerError, parseAnswer, verifyNotification, type CardPayment, type ClientOptions, type PaymentAnswer } from './client.ts';
