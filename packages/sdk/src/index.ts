// @acquiro/sdk: what a merchant's Node application needs of the Acquiro gateway: a typed client
// that signs requests and verifies answers, and checks of notifications and shopper returns.
export { canonicalString, sign, verify } from './signature.js';
export { AcquiroClient, type CallOptions, type ClientOptions, type FetchLike } from './client.js';
export { AnswerError, type AnswerProblem } from './errors.js';
export { parseAnswer } from './answer.js';
export { verifyNotification, type NotificationCheck } from './notifications.js';
export { verifyReturn, type ReturnCheck, type ReturnQuery, type SearchParamsLike } from './shopper-return.js';
export type {
  AccountOwner,
  ApmPayment,
  CancelOrder,
  CaptureOrder,
  CardOrderFields,
  CardPayment,
  CartItem,
  CheckoutOrder,
  Decimal,
  Flag,
  Integer,
  Keys,
  OptimiseRequest,
  OrderFields,
  OrderRef,
  PayoutBankDetails,
  PayoutBeneficiary,
  PayoutParty,
  PayoutRequest,
  Person,
  QuerySelection,
  RefundOrder,
  RefundSearchSelection,
  ReviewOrder,
  Subscription,
  SubscriptionCancellation,
  TimeWindow,
} from './requests.js';
export type {
  ApmAnswer,
  CancelAnswer,
  CancelResult,
  CancelSubscriptionAnswer,
  CaptureAnswer,
  CaptureResult,
  Envelope,
  FraudCheck,
  Notification,
  OptimiseAnswer,
  OrderStatus,
  PaymentAnswer,
  PayoutAnswer,
  PayoutStatus,
  QueryAnswer,
  RankedMethod,
  RefundAnswer,
  RefundRecord,
  RefundResult,
  RefundSearchAnswer,
  ReviewAnswer,
  ReviewResult,
  RiskReason,
  ShopperReturn,
  TransactionRecord,
} from './answers.js';
