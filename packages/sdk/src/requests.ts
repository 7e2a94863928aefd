// What each operation takes, as the gateway's docs (docs/api/*.md) define it. Every value is text
// as the interface reads it: amounts are decimal strings in the currency's units ("10.00",
// "1500" JPY). merchant_id, account_id and encryption_data are added by the client.

/** Decimal string in the currency's units, e.g. "10.00". */
export type Decimal = string;
/** An integer, as a number or as its text. */
export type Integer = number | string;
export type Flag = '0' | '1';

export interface CartItem {
  readonly basic_item_data: {
    readonly name?: string;
    readonly quantity?: Integer;
    readonly type?: string;
    readonly price?: { readonly amount_usd?: Decimal; readonly amount_local_currency?: Decimal; readonly currency?: string };
    readonly category?: string;
    readonly productId?: string;
  };
}

export interface AccountOwner {
  readonly first_name?: string;
  readonly last_name?: string;
  readonly email?: string;
  readonly account_id?: string;
  readonly created?: Integer;
  readonly past_orders_count?: Integer;
  readonly past_orders_sum?: Decimal;
  readonly lastLogin_ip?: string;
  readonly registration_ip?: string;
}

/** A subscription created when the card payment is approved (docs/api/authorise.md). */
export interface Subscription {
  readonly contract_name: string;
  readonly contract_amount: Decimal;
  readonly interval: 'day' | 'week' | 'month' | 'year';
  readonly interval_count?: Integer;
  readonly billing_cycle?: Integer;
  readonly promotion_cycle?: Integer;
  /** YYYY-MM-DD (UTC). */
  readonly contract_start?: string;
  readonly contract_end?: string;
  readonly contract?: string;
  readonly price_id?: string;
}

/** The order, the shopper and their device: fields every kind of payment shares. */
export interface OrderFields {
  readonly order_no: string;
  /** ISO 4217 code in capitals. */
  readonly currency: string;
  readonly amount: Decimal;
  readonly item_total?: Decimal;
  readonly shipping?: Decimal;
  readonly handling?: Decimal;
  readonly tax_total?: Decimal;
  readonly insurance?: Decimal;
  readonly shipping_discount?: Decimal;
  readonly discount?: Decimal;
  readonly service?: string;
  /** Records `name#,#item number#,#unit price#,#quantity` joined by `#;#`. */
  readonly items?: string;
  readonly note?: string;
  readonly custom?: string;
  readonly shopper_id?: string;
  readonly shopper_email?: string;
  readonly shopper_ip?: string;
  readonly shopper_phone?: string;
  readonly shopper_level?: string;
  readonly first_name?: string;
  readonly last_name?: string;
  readonly document?: string;
  /** DD-MM-YYYY. */
  readonly birth_date?: string;
  readonly billing_country?: string;
  readonly billing_state?: string;
  readonly billing_city?: string;
  readonly billing_address?: string;
  readonly billing_postal_code?: string;
  readonly delivery_firstname?: string;
  readonly delivery_lastname?: string;
  readonly delivery_country?: string;
  readonly delivery_state?: string;
  readonly delivery_city?: string;
  readonly delivery_address?: string;
  readonly delivery_postal_code?: string;
  readonly os?: string;
  readonly browser?: string;
  readonly browser_lang?: string;
  readonly time_zone?: string;
  readonly resolution?: string;
  readonly cookie_new?: string;
  readonly cookie_old?: string;
  readonly device_fingerprint?: string;
  readonly device_type?: string;
  readonly color_depth?: string;
  readonly notify_url?: string;
  readonly platform_source?: string;
}

/** Fields of card payments, direct or on the hosted page. */
export interface CardOrderFields extends OrderFields {
  readonly open3d?: Flag;
  readonly token_flag?: Flag;
  readonly challenge_window_size?: string;
  readonly session_id?: string;
  readonly user_agent?: string;
  readonly order_type?: string;
  readonly antifraud_token_cookie?: string;
  readonly installments?: string;
  readonly installments_id?: string;
  readonly storefront_domains?: string;
  readonly price_id?: string;
  readonly quote_id?: string;
  readonly quote_price?: Decimal;
  readonly checkout_time?: Integer;
  readonly cart_items?: readonly CartItem[];
  readonly account_owner?: readonly AccountOwner[];
  readonly total_discount?: readonly { readonly coupon_code_used?: string; readonly discount_type?: string }[];
  /** An external 3-D Secure result (docs/3ds.md). */
  readonly additional_information?: readonly { readonly mpi_info?: { readonly eci?: string; readonly cavv?: string; readonly xid?: string; readonly dsTransID?: string } }[];
  readonly subscription?: Subscription;
}

interface CardGroup {
  readonly card: string;
  readonly expiration_month: string;
  /** Four digits. */
  readonly expiration_year: string;
  readonly security_code: string;
  readonly token_id?: never;
}

interface StoredCard {
  /** A token this account stored (token_flag=1 on an earlier payment). */
  readonly token_id: string;
  readonly card?: never;
  readonly expiration_month?: never;
  readonly expiration_year?: never;
  readonly security_code?: never;
}

/** A direct card payment: the card group, or a stored card's token_id. */
export type CardPayment = CardOrderFields &
  (CardGroup | StoredCard) & {
    readonly accept?: string;
    /** Where the shopper returns after a 3-D Secure challenge. */
    readonly return_url?: string;
  };

export interface Person {
  readonly document_type?: 'CPF' | 'CNPJ' | 'CURP' | 'RFC' | 'DNI' | 'CC' | 'CE' | 'NIT' | 'RUT' | 'PASSPORT';
  readonly document_number?: string;
  readonly social_name?: string;
  readonly email?: string;
  readonly phone_country_code?: string;
  readonly phone_area_code?: string;
  readonly phone_number?: string;
  readonly birth_date?: string;
  readonly net_monthly_average_income?: Decimal;
  readonly address_street?: string;
  readonly address_number?: string;
  readonly address_complement?: string;
  readonly address_postal_code?: string;
  readonly address_city?: string;
  readonly address_state?: string;
  readonly address_country?: string;
  readonly fiscal_country?: string;
  readonly documents?: {
    readonly file_type?: 'pdf' | 'jpg' | 'jpeg' | 'png';
    readonly file_data?: string;
    readonly file_url?: string;
    readonly labels?: {
      readonly person_bank_account_id?: string;
      readonly bank_account?: {
        readonly account_type?: string;
        readonly account_number?: string;
        readonly branch_number?: string;
        readonly owner_document_number?: string;
        readonly owner_name?: string;
        readonly branch_country?: string;
        readonly currency?: string;
        readonly bank?: { readonly code?: string; readonly name?: string };
      };
    };
  };
}

/** An alternative payment method (docs/apm.md): the shopper approves on the method's page. */
export interface ApmPayment extends OrderFields {
  /** A method the account offers, e.g. `sandbox_redirect`. */
  readonly payment_method: string;
  readonly return_url: string;
  readonly bank_code?: string;
  readonly delivery_district_name?: string;
  readonly delivery_street_name?: string;
  readonly person?: Person;
}

/** A payment on the hosted page (docs/api/checkout.md): no card fields, the shopper types them. */
export interface CheckoutOrder extends CardOrderFields {
  /** Without it the hosted page shows the shopper the outcome; the notification tells you. */
  readonly return_url?: string;
  readonly cancel_url?: string;
  readonly default_lang?: string;
}

/** A transaction named by both its keys, with its currency and an amount. */
export interface OrderRef {
  readonly transaction_id: string;
  readonly order_no: string;
  readonly currency: string;
  readonly amount: Decimal;
}

/** `amount`: what to capture now (the authorised amount or less). */
export type CaptureOrder = OrderRef;
/** `amount`: the whole authorised amount. */
export type CancelOrder = OrderRef;
export interface ReviewOrder extends OrderRef {
  /** 1 approve, 0 reject. */
  readonly review_flag: Flag;
}
export interface RefundOrder extends OrderRef {
  readonly refund_amount: Decimal;
  readonly refund_reason?: string;
}

/** A window of creation times, `YYYYMMDDhhmmss` UTC, both inclusive; 100 per page. */
export interface TimeWindow {
  readonly start_time: string;
  readonly end_time: string;
  readonly page?: Integer;
}

/** Keys as a list (up to 100), or as the comma-separated text the interface takes. */
export type Keys = string | readonly string[];

export type QuerySelection = { readonly order_no: Keys } | { readonly transaction_id: Keys } | TimeWindow;

export type RefundSearchSelection = { readonly refund_reference_id: Keys } | { readonly transaction_id: Keys } | { readonly order_no: Keys } | TimeWindow;

export interface OptimiseRequest {
  readonly currency: string;
  readonly amount: Decimal;
  readonly billing_country?: string;
  readonly device_type?: string;
}

/** Which subscription to cancel (POST /v1/cancelsubscription): its recurring_id and contract_name. */
export interface SubscriptionCancellation {
  /** The recurring_id of the payment that began the subscription. */
  readonly recurring_id: string;
  readonly contract_name: string;
}

/** The beneficiary's bank account (docs/payouts.md: which fields each rail needs). */
export interface PayoutBankDetails {
  readonly account_name: string;
  readonly bank_country_code: string;
  readonly account_currency: string;
  readonly iban?: string;
  readonly swift_code?: string;
  readonly account_number?: string;
  /** The country's local bank code (ABA routing number, sort code, BSB, IFSC, …). */
  readonly bank_code?: string;
  readonly bank_branch?: string;
  readonly bank_name?: string;
  readonly owner_document_number?: string;
  readonly bank_account_category?: string;
  readonly bank_street_address?: string;
  readonly binding_mobile_number?: string;
  readonly transaction_reference?: string;
}

/** The payer of a payout (docs/payouts.md): only the fields it defines, as any other is refused (4019). */
export interface PayoutParty {
  readonly entity_type: 'PERSONAL' | 'COMPANY';
  /** PERSONAL: first_name and last_name; COMPANY: company_name. */
  readonly first_name?: string;
  readonly last_name?: string;
  readonly company_name?: string;
  /** YYYY-MM-DD. */
  readonly date_of_birth?: string;
  readonly address?: {
    readonly city?: string;
    readonly country_code?: string;
    readonly postcode?: string;
    readonly state?: string;
    readonly street_address?: string;
  };
  readonly additional_info?: {
    readonly business_registration_number?: string;
    readonly business_registration_type?: string;
    readonly external_id?: string;
    readonly personal_email?: string;
    readonly personal_id_number?: string;
    readonly job?: string;
  };
}

/** The beneficiary of a payout: its address and additional_info have fields of their own. */
export interface PayoutBeneficiary extends Omit<PayoutParty, 'address' | 'additional_info'> {
  readonly address?: {
    readonly city?: string;
    readonly country_code?: string;
    readonly postcode?: string;
    readonly state?: string;
    readonly street?: string;
    readonly number?: string;
    readonly street_address?: string;
    readonly complement?: string;
  };
  readonly additional_info?: {
    readonly business_area?: string;
    readonly business_phone_number?: string;
    readonly business_registration_number?: string;
    readonly personal_email?: string;
    readonly personal_id_number?: string;
    readonly personal_id_type?: string;
    readonly personal_mobile_number?: string;
    readonly personal_net_monthly_average_income?: string;
    readonly personal_phone_country_code?: string;
    readonly personal_phone_area_code?: string;
    readonly personal_fiscal_country?: string;
  };
  readonly bank_details: PayoutBankDetails;
  readonly person_documents?: readonly { readonly file_type?: string; readonly file_url?: string; readonly labels?: readonly string[] }[];
}

/** A payout (POST /v1/payout): exactly one of payment_amount and source_amount. */
export type PayoutRequest = {
  /** A UUID, unique per account: repeat it to learn the payout's state, never to pay twice. */
  readonly request_id: string;
  readonly payment_currency: string;
  readonly source_currency?: string;
  readonly payment_method: 'LOCAL' | 'SWIFT';
  readonly reason: string;
  readonly reference: string;
  readonly beneficiary: PayoutBeneficiary;
  readonly payer?: PayoutParty;
  readonly fee_paid_by?: 'PAYER' | 'BENEFICIARY';
  readonly swift_charge_option?: 'SHARED' | 'PAYER';
  /** YYYY-MM-DD, today (UTC) or later; a later day schedules the payout. */
  readonly payment_date?: string;
  readonly beneficiary_id?: string;
  readonly client_data?: string;
  readonly fund_source?: string;
  readonly notify_url?: string;
} & ({ readonly payment_amount: Decimal; readonly source_amount?: never } | { readonly source_amount: Decimal; readonly payment_amount?: never });
