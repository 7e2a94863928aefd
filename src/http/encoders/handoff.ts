// The fields of the hand-off page's hidden form (the redirect payment response of docs/api/checkout.md), in the documented
// order: the fixed routing fields, every request field echoed under its own name, the alias
// names, and allParams. A name is written once: where an alias or routing field has the name of a
// request field (return_url, cancel_url, default_lang, service), it carries that field's value.
// The gateway reads only signInfo back: the session holds the order, so a changed hidden field
// changes nothing.
import type { AccountRow, CheckoutSessionRow } from '../../db/schema.ts';

export const ROUTING_FIELDS = [
  'gbc_id',
  'connector_code',
  'account_name',
  'service',
  'pm_id',
  'apm_type',
  'descriptor',
  'orderprefix',
  'rrtimezone',
  'ordernumlength',
  'sendbgoods',
  'replacename',
  'send_bank_website',
  'replace_up_id',
  'replace_match_address',
  'to_pass_page',
] as const;

export const ALIAS_FIELDS = [
  'merNo', 'gatewayNo', 'orderNo', 'orderCurrency', 'orderAmount', 'itemTotal', 'taxTotal', 'shipFee', 'shippingDiscount',
  'goodsInfo', 'remark', 'firstName', 'lastName', 'email', 'phone', 'address', 'city', 'state', 'zip', 'country',
  'shipFirstName', 'shipLastName', 'shipAddress', 'shipCity', 'shipState', 'shipZip', 'shipCountry', 'notifyUrl',
  'returnUrl', 'cancelUrl', 'return_url', 'cancel_url', 'source_notify_url', 'defaultLang', 'default_lang', 'shopperId',
  'shopperLevel', 'isOpen3D', 'token', 'paymentToken', 'cardType', 'card_type', 'signInfo', 'APMType', 'payment_method',
  'merSendLogoNo', 'logo_name', 'verifyBillingAddress', 'verify_billing_address', 'source_request_ip',
] as const;

/** Aliases that repeat one request field. The rest are computed below. */
const ALIAS_OF: Partial<Record<(typeof ALIAS_FIELDS)[number], string>> = {
  merNo: 'merchant_id',
  gatewayNo: 'account_id',
  orderNo: 'order_no',
  orderCurrency: 'currency',
  orderAmount: 'amount',
  itemTotal: 'item_total',
  taxTotal: 'tax_total',
  shipFee: 'shipping',
  shippingDiscount: 'shipping_discount',
  goodsInfo: 'items',
  remark: 'note',
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'shopper_email',
  phone: 'shopper_phone',
  address: 'billing_address',
  city: 'billing_city',
  state: 'billing_state',
  zip: 'billing_postal_code',
  country: 'billing_country',
  shipFirstName: 'delivery_firstname',
  shipLastName: 'delivery_lastname',
  shipAddress: 'delivery_address',
  shipCity: 'delivery_city',
  shipState: 'delivery_state',
  shipZip: 'delivery_postal_code',
  shipCountry: 'delivery_country',
  notifyUrl: 'notify_url',
  returnUrl: 'return_url',
  cancelUrl: 'cancel_url',
  return_url: 'return_url',
  cancel_url: 'cancel_url',
  source_notify_url: 'notify_url',
  defaultLang: 'default_lang',
  default_lang: 'default_lang',
  shopperId: 'shopper_id',
  shopperLevel: 'shopper_level',
};

export interface HandOffInput {
  readonly account: AccountRow;
  readonly merchantName: string;
  readonly session: CheckoutSessionRow;
  /** The merchant's request as signed (normalised), encryption_data included. */
  readonly body: Record<string, unknown>;
  readonly signInfo: string;
  /** Address the merchant's request came from. */
  readonly sourceIp: string;
}

export function handOffFields(input: HandOffInput): [string, string][] {
  const { body } = input;
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
  const fields = new Map<string, string>();
  const put = (name: string, value: string) => {
    if (!fields.has(name)) fields.set(name, value);
  };

  const routing: Record<(typeof ROUTING_FIELDS)[number], string> = {
    gbc_id: input.session.id,
    connector_code: input.account.connector,
    account_name: input.account.name,
    service: text('service') || 'checkout',
    pm_id: 'card',
    apm_type: '',
    descriptor: input.merchantName.toUpperCase().replace(/[^A-Z0-9 .*-]/g, '').slice(0, 22),
    orderprefix: '',
    rrtimezone: text('time_zone') || '0',
    ordernumlength: String(text('order_no').length),
    sendbgoods: body.items !== undefined || body.cart_items !== undefined ? '1' : '0',
    replacename: '0',
    send_bank_website: '0',
    replace_up_id: '',
    replace_match_address: '0',
    to_pass_page: '1',
  };
  for (const name of ROUTING_FIELDS) put(name, routing[name]);

  for (const [name, value] of formLeaves(body)) put(name, value);

  const computed: Partial<Record<(typeof ALIAS_FIELDS)[number], string>> = {
    isOpen3D: text('open3d') || '0',
    token: '',
    paymentToken: '',
    cardType: '',
    card_type: '',
    signInfo: input.signInfo,
    APMType: '',
    payment_method: 'card',
    merSendLogoNo: '',
    logo_name: '',
    verifyBillingAddress: '0',
    verify_billing_address: '0',
    source_request_ip: input.sourceIp,
  };
  const aliases = ALIAS_FIELDS.map((name) => [name, ALIAS_OF[name] ? text(ALIAS_OF[name]) : (computed[name] ?? '')] as const);
  for (const [name, value] of aliases) put(name, value);
  put('allParams', aliases.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&'));
  return [...fields];
}

/** Every leaf of the body as a form field in bracket notation: cart_items[0][basic_item_data][name]. */
function formLeaves(node: unknown, prefix = ''): [string, string][] {
  if (node === null || node === undefined) return [];
  if (typeof node !== 'object') return [[prefix, String(node)]];
  const entries = Array.isArray(node) ? node.map((child, i) => [String(i), child] as const) : Object.entries(node);
  return entries.flatMap(([key, child]) => formLeaves(child, prefix ? `${prefix}[${key}]` : key));
}
