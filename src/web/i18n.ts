// What the shopper reads, in English, Spanish, Portuguese and (simplified) Chinese. A page picks
// its language from the request's browser_lang, then default_lang, then the browser's
// Accept-Language, then English. `{name}` placeholders are filled by fill().

export const LANGUAGES = ['en', 'es', 'pt', 'zh'] as const;
export type Lang = (typeof LANGUAGES)[number];

/** Locale for numbers and money when the request names only the language. */
const DEFAULT_LOCALE: Record<Lang, string> = { en: 'en-US', es: 'es-ES', pt: 'pt-BR', zh: 'zh-CN' };

/** What a shopper is told of a refused card: its cause, never a fraud verdict (src/web/pages/hosted.ts). */
export type RefusalCause = 'generic' | 'funds' | 'expired' | 'cvc' | 'auth' | 'processing';

/** The messages that are one text (all but the tables of them). */
export type MessageText = { [K in keyof Messages]: Messages[K] extends string ? K : never }[keyof Messages];

export interface Messages {
  readonly handoffTitle: string;
  readonly handoffHeading: string;
  readonly handoffHint: string;
  readonly continue: string;
  readonly payTitle: string;
  readonly summaryHeading: string;
  readonly orderLabel: string;
  readonly quantity: string;
  readonly subtotal: string;
  readonly shipping: string;
  readonly tax: string;
  readonly discount: string;
  readonly total: string;
  readonly cardHeading: string;
  readonly holderLabel: string;
  readonly numberLabel: string;
  readonly expiryLabel: string;
  readonly expiryHint: string;
  readonly cvcLabel: string;
  readonly cvcHint: string;
  readonly payButton: string;
  readonly paying: string;
  readonly cancel: string;
  /** The cancel button when the merchant gave nowhere to return to. */
  readonly cancelPayment: string;
  readonly secureNote: string;
  readonly sandboxBanner: string;
  readonly errSummary: string;
  readonly errHolder: string;
  readonly errNumber: string;
  readonly errExpiry: string;
  readonly errExpired: string;
  readonly errCvc: string;
  readonly declGeneric: string;
  readonly declFunds: string;
  readonly declExpired: string;
  readonly declCvc: string;
  readonly declAuth: string;
  readonly declProcessing: string;
  /**
   * The same refusals on the outcome page, where no form follows: the cause alone (the page's own
   * text says how to try again).
   */
  readonly refusalCauses: Readonly<Record<RefusalCause, string>>;
  readonly attemptsLeft: string;
  readonly processingTitle: string;
  readonly processingText: string;
  readonly refresh: string;
  /** The step from the pay button to the bank's own verification page (3-D Secure). */
  readonly toBankTitle: string;
  readonly toBankText: string;
  readonly toBankButton: string;
  readonly expiredTitle: string;
  readonly expiredText: string;
  readonly notFoundTitle: string;
  readonly notFoundText: string;
  readonly replayTitle: string;
  readonly replayText: string;
  readonly forgedTitle: string;
  readonly forgedText: string;
  readonly returnButton: string;
  readonly doneTitle: string;
  readonly doneText: string;
  readonly closedTitle: string;
  readonly closedText: string;
  readonly outcomePaidTitle: string;
  readonly outcomePaidText: string;
  readonly outcomeDeclinedTitle: string;
  readonly outcomeDeclinedText: string;
  readonly outcomeAbandonedTitle: string;
  readonly outcomeAbandonedText: string;
  readonly outcomePendingTitle: string;
  readonly outcomePendingText: string;
  readonly closeWindow: string;
  readonly errorTitle: string;
  readonly errorText: string;
}

const en: Messages = {
  handoffTitle: 'Loading payment page…',
  handoffHeading: 'Taking you to the secure payment page',
  handoffHint: 'If nothing happens, select Continue.',
  continue: 'Continue',
  payTitle: 'Payment to {merchant}',
  summaryHeading: 'Order summary',
  orderLabel: 'Order',
  quantity: 'Qty {n}',
  subtotal: 'Subtotal',
  shipping: 'Shipping',
  tax: 'Tax',
  discount: 'Discount',
  total: 'Total',
  cardHeading: 'Pay by card',
  holderLabel: 'Name on card',
  numberLabel: 'Card number',
  expiryLabel: 'Expiry date',
  expiryHint: 'MM / YY',
  cvcLabel: 'Security code',
  cvcHint: '3 digits on the back; 4 on the front for American Express',
  payButton: 'Pay {amount}',
  paying: 'Processing…',
  cancel: 'Cancel and return to the store',
  cancelPayment: 'Cancel payment',
  secureNote: 'Your card details go encrypted to the payment gateway, never to the store.',
  sandboxBanner: 'Sandbox: test cards only, no real money moves.',
  errSummary: 'Please correct the fields marked below.',
  errHolder: 'Enter the name as it appears on the card.',
  errNumber: 'Enter a valid card number.',
  errExpiry: 'Enter the expiry date as MM / YY.',
  errExpired: 'This card has expired.',
  errCvc: 'Enter the {n}-digit security code.',
  declGeneric: 'Your card was declined. Try another card or contact your bank.',
  declFunds: 'The card has insufficient funds. Try another card.',
  declExpired: 'Your bank reports this card as expired. Try another card.',
  declCvc: 'The security code is incorrect. Check it and try again.',
  declAuth: 'Your bank could not verify the card (3-D Secure). Try again or use another card.',
  declProcessing: 'The payment could not be processed. Please try again.',
  refusalCauses: {
    generic: 'Your card was declined.',
    funds: 'The card has insufficient funds.',
    expired: 'Your bank reports this card as expired.',
    cvc: 'The security code was incorrect.',
    auth: 'Your bank could not verify the card (3-D Secure).',
    processing: 'The payment could not be processed.',
  },
  attemptsLeft: 'Attempts left: {n}',
  processingTitle: 'Processing your payment',
  processingText: 'This takes a few seconds. The page refreshes by itself.',
  refresh: 'Refresh',
  toBankTitle: 'Taking you to your bank',
  toBankText: 'Your bank asks you to confirm this payment. If its page does not open by itself, continue below.',
  toBankButton: 'Continue to your bank',
  expiredTitle: 'This payment page has expired',
  expiredText: 'Return to the store to start again.',
  notFoundTitle: 'Payment page not found',
  notFoundText: 'The link is incomplete or no longer valid.',
  replayTitle: 'This payment page was already opened',
  replayText: 'It can be opened only once. If you closed it, return to the store and start again.',
  forgedTitle: 'This payment link is not valid',
  forgedText: 'Return to the store and start again.',
  returnButton: 'Return to the store',
  doneTitle: 'Verification finished',
  doneText: 'You can close this window and return to the store.',
  closedTitle: 'This payment page is closed',
  closedText: 'The payment already has its outcome. You can close this window and return to the store.',
  outcomePaidTitle: 'Payment successful',
  outcomePaidText: 'Your payment was approved.',
  outcomeDeclinedTitle: 'Payment not completed',
  outcomeDeclinedText: 'Nothing was charged. To try again, start over from the store.',
  outcomeAbandonedTitle: 'Payment cancelled',
  outcomeAbandonedText: 'Nothing was charged.',
  outcomePendingTitle: 'Payment being confirmed',
  outcomePendingText: 'Your payment is not confirmed yet. The store will be told the outcome, so there is no need to pay again.',
  closeWindow: 'You can close this window now.',
  errorTitle: 'Something went wrong',
  errorText: 'Nothing was charged. Please try again in a moment.',
};

const es: Messages = {
  handoffTitle: 'Cargando la página de pago…',
  handoffHeading: 'Le llevamos a la página de pago segura',
  handoffHint: 'Si no ocurre nada, seleccione Continuar.',
  continue: 'Continuar',
  payTitle: 'Pago a {merchant}',
  summaryHeading: 'Resumen del pedido',
  orderLabel: 'Pedido',
  quantity: 'Cant. {n}',
  subtotal: 'Subtotal',
  shipping: 'Envío',
  tax: 'Impuestos',
  discount: 'Descuento',
  total: 'Total',
  cardHeading: 'Pagar con tarjeta',
  holderLabel: 'Nombre en la tarjeta',
  numberLabel: 'Número de tarjeta',
  expiryLabel: 'Fecha de caducidad',
  expiryHint: 'MM / AA',
  cvcLabel: 'Código de seguridad',
  cvcHint: '3 dígitos en el reverso; 4 en el anverso para American Express',
  payButton: 'Pagar {amount}',
  paying: 'Procesando…',
  cancel: 'Cancelar y volver a la tienda',
  cancelPayment: 'Cancelar el pago',
  secureNote: 'Los datos de su tarjeta viajan cifrados a la pasarela de pago, nunca a la tienda.',
  sandboxBanner: 'Entorno de pruebas: solo tarjetas de prueba, no se mueve dinero real.',
  errSummary: 'Corrija los campos señalados.',
  errHolder: 'Introduzca el nombre tal como figura en la tarjeta.',
  errNumber: 'Introduzca un número de tarjeta válido.',
  errExpiry: 'Introduzca la fecha de caducidad como MM / AA.',
  errExpired: 'Esta tarjeta ha caducado.',
  errCvc: 'Introduzca el código de seguridad de {n} dígitos.',
  declGeneric: 'Su tarjeta ha sido rechazada. Pruebe con otra tarjeta o contacte con su banco.',
  declFunds: 'La tarjeta no tiene saldo suficiente. Pruebe con otra tarjeta.',
  declExpired: 'Su banco indica que esta tarjeta ha caducado. Pruebe con otra tarjeta.',
  declCvc: 'El código de seguridad no es correcto. Compruébelo e inténtelo de nuevo.',
  declAuth: 'Su banco no ha podido verificar la tarjeta (3-D Secure). Inténtelo de nuevo o use otra tarjeta.',
  declProcessing: 'No se ha podido procesar el pago. Inténtelo de nuevo.',
  refusalCauses: {
    generic: 'Su tarjeta ha sido rechazada.',
    funds: 'La tarjeta no tiene saldo suficiente.',
    expired: 'Su banco indica que esta tarjeta ha caducado.',
    cvc: 'El código de seguridad no era correcto.',
    auth: 'Su banco no ha podido verificar la tarjeta (3-D Secure).',
    processing: 'No se ha podido procesar el pago.',
  },
  attemptsLeft: 'Intentos restantes: {n}',
  processingTitle: 'Procesando su pago',
  processingText: 'Tardará unos segundos. La página se actualizará sola.',
  refresh: 'Actualizar',
  toBankTitle: 'Le llevamos a su banco',
  toBankText: 'Su banco le pide que confirme este pago. Si su página no se abre sola, continúe abajo.',
  toBankButton: 'Continuar a su banco',
  expiredTitle: 'Esta página de pago ha caducado',
  expiredText: 'Vuelva a la tienda para empezar de nuevo.',
  notFoundTitle: 'Página de pago no encontrada',
  notFoundText: 'El enlace está incompleto o ya no es válido.',
  replayTitle: 'Esta página de pago ya se abrió',
  replayText: 'Solo se puede abrir una vez. Si la cerró, vuelva a la tienda y empiece de nuevo.',
  forgedTitle: 'Este enlace de pago no es válido',
  forgedText: 'Vuelva a la tienda y empiece de nuevo.',
  returnButton: 'Volver a la tienda',
  doneTitle: 'Verificación terminada',
  doneText: 'Puede cerrar esta ventana y volver a la tienda.',
  closedTitle: 'Esta página de pago está cerrada',
  closedText: 'El pago ya tiene su resultado. Puede cerrar esta ventana y volver a la tienda.',
  outcomePaidTitle: 'Pago realizado',
  outcomePaidText: 'Su pago ha sido aprobado.',
  outcomeDeclinedTitle: 'Pago no completado',
  outcomeDeclinedText: 'No se ha cobrado nada. Para intentarlo de nuevo, empiece otra vez desde la tienda.',
  outcomeAbandonedTitle: 'Pago cancelado',
  outcomeAbandonedText: 'No se ha cobrado nada.',
  outcomePendingTitle: 'Pago pendiente de confirmación',
  outcomePendingText: 'Su pago aún no está confirmado. La tienda recibirá el resultado, así que no hace falta pagar de nuevo.',
  closeWindow: 'Ya puede cerrar esta ventana.',
  errorTitle: 'Algo ha fallado',
  errorText: 'No se ha cobrado nada. Inténtelo de nuevo en un momento.',
};

const pt: Messages = {
  handoffTitle: 'Carregando a página de pagamento…',
  handoffHeading: 'Levando você à página de pagamento segura',
  handoffHint: 'Se nada acontecer, selecione Continuar.',
  continue: 'Continuar',
  payTitle: 'Pagamento para {merchant}',
  summaryHeading: 'Resumo do pedido',
  orderLabel: 'Pedido',
  quantity: 'Qtd. {n}',
  subtotal: 'Subtotal',
  shipping: 'Frete',
  tax: 'Impostos',
  discount: 'Desconto',
  total: 'Total',
  cardHeading: 'Pagar com cartão',
  holderLabel: 'Nome no cartão',
  numberLabel: 'Número do cartão',
  expiryLabel: 'Validade',
  expiryHint: 'MM / AA',
  cvcLabel: 'Código de segurança',
  cvcHint: '3 dígitos no verso; 4 na frente para American Express',
  payButton: 'Pagar {amount}',
  paying: 'Processando…',
  cancel: 'Cancelar e voltar à loja',
  cancelPayment: 'Cancelar pagamento',
  secureNote: 'Os dados do seu cartão vão criptografados para o gateway de pagamento, nunca para a loja.',
  sandboxBanner: 'Sandbox: apenas cartões de teste, nenhum dinheiro real é movimentado.',
  errSummary: 'Corrija os campos indicados.',
  errHolder: 'Informe o nome como aparece no cartão.',
  errNumber: 'Informe um número de cartão válido.',
  errExpiry: 'Informe a validade como MM / AA.',
  errExpired: 'Este cartão está vencido.',
  errCvc: 'Informe o código de segurança de {n} dígitos.',
  declGeneric: 'Seu cartão foi recusado. Tente outro cartão ou fale com seu banco.',
  declFunds: 'O cartão não tem saldo suficiente. Tente outro cartão.',
  declExpired: 'Seu banco informa que este cartão está vencido. Tente outro cartão.',
  declCvc: 'O código de segurança está incorreto. Confira e tente novamente.',
  declAuth: 'Seu banco não conseguiu verificar o cartão (3-D Secure). Tente novamente ou use outro cartão.',
  declProcessing: 'Não foi possível processar o pagamento. Tente novamente.',
  refusalCauses: {
    generic: 'Seu cartão foi recusado.',
    funds: 'O cartão não tem saldo suficiente.',
    expired: 'Seu banco informa que este cartão está vencido.',
    cvc: 'O código de segurança estava incorreto.',
    auth: 'Seu banco não conseguiu verificar o cartão (3-D Secure).',
    processing: 'Não foi possível processar o pagamento.',
  },
  attemptsLeft: 'Tentativas restantes: {n}',
  processingTitle: 'Processando seu pagamento',
  processingText: 'Isso leva alguns segundos. A página se atualiza sozinha.',
  refresh: 'Atualizar',
  toBankTitle: 'Levando você ao seu banco',
  toBankText: 'Seu banco pede que você confirme este pagamento. Se a página dele não abrir sozinha, continue abaixo.',
  toBankButton: 'Continuar para o seu banco',
  expiredTitle: 'Esta página de pagamento expirou',
  expiredText: 'Volte à loja para começar de novo.',
  notFoundTitle: 'Página de pagamento não encontrada',
  notFoundText: 'O link está incompleto ou não é mais válido.',
  replayTitle: 'Esta página de pagamento já foi aberta',
  replayText: 'Ela só pode ser aberta uma vez. Se você a fechou, volte à loja e comece de novo.',
  forgedTitle: 'Este link de pagamento não é válido',
  forgedText: 'Volte à loja e comece de novo.',
  returnButton: 'Voltar à loja',
  doneTitle: 'Verificação concluída',
  doneText: 'Você pode fechar esta janela e voltar à loja.',
  closedTitle: 'Esta página de pagamento está encerrada',
  closedText: 'O pagamento já tem seu resultado. Você pode fechar esta janela e voltar à loja.',
  outcomePaidTitle: 'Pagamento concluído',
  outcomePaidText: 'Seu pagamento foi aprovado.',
  outcomeDeclinedTitle: 'Pagamento não concluído',
  outcomeDeclinedText: 'Nada foi cobrado. Para tentar novamente, recomece pela loja.',
  outcomeAbandonedTitle: 'Pagamento cancelado',
  outcomeAbandonedText: 'Nada foi cobrado.',
  outcomePendingTitle: 'Pagamento em confirmação',
  outcomePendingText: 'Seu pagamento ainda não foi confirmado. A loja será informada do resultado, então não é preciso pagar de novo.',
  closeWindow: 'Você já pode fechar esta janela.',
  errorTitle: 'Algo deu errado',
  errorText: 'Nada foi cobrado. Tente novamente em instantes.',
};

const zh: Messages = {
  handoffTitle: '正在加载支付页面…',
  handoffHeading: '正在为您打开安全支付页面',
  handoffHint: '如果页面没有跳转，请点击“继续”。',
  continue: '继续',
  payTitle: '向 {merchant} 付款',
  summaryHeading: '订单摘要',
  orderLabel: '订单',
  quantity: '数量 {n}',
  subtotal: '小计',
  shipping: '运费',
  tax: '税费',
  discount: '折扣',
  total: '合计',
  cardHeading: '银行卡支付',
  holderLabel: '持卡人姓名',
  numberLabel: '卡号',
  expiryLabel: '有效期',
  expiryHint: 'MM / YY',
  cvcLabel: '安全码',
  cvcHint: '卡背面 3 位数字；American Express 为卡正面 4 位数字',
  payButton: '支付 {amount}',
  paying: '处理中…',
  cancel: '取消并返回商店',
  cancelPayment: '取消付款',
  secureNote: '您的卡信息加密发送至支付网关，不会发送给商店。',
  sandboxBanner: '沙盒环境：仅限测试卡，不会产生真实资金流动。',
  errSummary: '请更正下方标出的字段。',
  errHolder: '请输入卡面上的姓名。',
  errNumber: '请输入有效的卡号。',
  errExpiry: '请按 MM / YY 格式输入有效期。',
  errExpired: '此卡已过期。',
  errCvc: '请输入 {n} 位安全码。',
  declGeneric: '您的卡被拒绝。请换一张卡或联系发卡银行。',
  declFunds: '卡内余额不足。请换一张卡。',
  declExpired: '发卡银行显示此卡已过期。请换一张卡。',
  declCvc: '安全码不正确。请检查后重试。',
  declAuth: '发卡银行未能验证此卡（3-D Secure）。请重试或换一张卡。',
  declProcessing: '支付未能处理。请重试。',
  refusalCauses: {
    generic: '您的卡被拒绝。',
    funds: '卡内余额不足。',
    expired: '发卡银行显示此卡已过期。',
    cvc: '安全码不正确。',
    auth: '发卡银行未能验证此卡（3-D Secure）。',
    processing: '支付未能处理。',
  },
  attemptsLeft: '剩余尝试次数：{n}',
  processingTitle: '正在处理您的付款',
  processingText: '需要几秒钟，页面会自动刷新。',
  refresh: '刷新',
  toBankTitle: '正在前往您的银行',
  toBankText: '您的银行要求您确认此付款。如果银行页面没有自动打开，请点击下方继续。',
  toBankButton: '前往您的银行',
  expiredTitle: '此支付页面已过期',
  expiredText: '请返回商店重新开始。',
  notFoundTitle: '未找到支付页面',
  notFoundText: '链接不完整或已失效。',
  replayTitle: '此支付页面已被打开过',
  replayText: '它只能打开一次。如果您已关闭，请返回商店重新开始。',
  forgedTitle: '此支付链接无效',
  forgedText: '请返回商店重新开始。',
  returnButton: '返回商店',
  doneTitle: '验证已完成',
  doneText: '您可以关闭此窗口并返回商店。',
  closedTitle: '此支付页面已关闭',
  closedText: '该付款已有结果。您可以关闭此窗口并返回商店。',
  outcomePaidTitle: '支付成功',
  outcomePaidText: '您的付款已获批准。',
  outcomeDeclinedTitle: '支付未完成',
  outcomeDeclinedText: '未产生任何扣款。如需重试，请返回商店重新开始。',
  outcomeAbandonedTitle: '支付已取消',
  outcomeAbandonedText: '未产生任何扣款。',
  outcomePendingTitle: '付款确认中',
  outcomePendingText: '您的付款尚未确认。商店会收到付款结果，无需重复支付。',
  closeWindow: '您现在可以关闭此窗口。',
  errorTitle: '出现问题',
  errorText: '未产生任何扣款。请稍后重试。',
};

const MESSAGES: Record<Lang, Messages> = { en, es, pt, zh };

export function messages(lang: Lang): Messages {
  return MESSAGES[lang];
}

/** Replaces `{name}` placeholders. */
export function fill(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

export interface Language {
  readonly lang: Lang;
  /** BCP 47 locale for numbers and money: the request's own tag when it is of this language. */
  readonly locale: string;
}

/** The first candidate tag (en-US, pt_BR, zh-Hans-CN…) whose language we have; English otherwise. */
export function pickLanguage(candidates: readonly (string | undefined)[]): Language {
  for (const candidate of candidates) {
    for (const tag of (candidate ?? '').split(',')) {
      const clean = tag.split(';')[0]!.trim().replace(/_/g, '-');
      const lang = clean.slice(0, 2).toLowerCase() as Lang;
      if (!LANGUAGES.includes(lang) || (clean.length > 2 && clean[2] !== '-')) continue;
      return { lang, locale: localeFor(lang, clean) };
    }
  }
  return { lang: 'en', locale: DEFAULT_LOCALE.en };
}

function localeFor(lang: Lang, tag: string): string {
  if (tag.length <= 2) return DEFAULT_LOCALE[lang];
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? DEFAULT_LOCALE[lang];
  } catch {
    return DEFAULT_LOCALE[lang];
  }
}

/** An amount in minor units as the shopper's locale writes it: "$10.00", "R$ 10,00", "10,00 €". */
export function formatMoney(minor: number, currency: string, exponent: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent }).format(
    minor / 10 ** exponent,
  );
}
