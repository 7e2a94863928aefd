// What the shopper reads on the sandbox's simulated third parties (the issuer's 3-D Secure
// challenge and the APM provider's page), in the hosted page's languages (i18n.ts picks which).
// Developer notes (which code passes, the challenge window's size) are not translated: they sit in
// a closed "Sandbox" note, out of the shopper's way.
import type { Lang } from './i18n.ts';

export interface SandboxMessages {
  readonly acsTitle: string;
  readonly acsHeading: string;
  readonly merchant: string;
  readonly amount: string;
  readonly card: string;
  readonly order: string;
  readonly otpLabel: string;
  readonly otpWrong: string;
  readonly verify: string;
  readonly cancel: string;
  readonly approveHeading: string;
  readonly bankHeading: string;
  readonly yourBank: string;
  readonly voucherHeading: string;
  readonly signedInAs: string;
  readonly voucher: string;
  readonly payBy: string;
  readonly approve: string;
  readonly decline: string;
  readonly voucherPaid: string;
  readonly voucherRefused: string;
  readonly payLater: string;
  readonly backToStore: string;
  readonly sandboxNote: string;
}

const en: SandboxMessages = {
  acsTitle: 'Verify your payment',
  acsHeading: 'Verify it’s you',
  merchant: 'Merchant',
  amount: 'Amount',
  card: 'Card',
  order: 'Order',
  otpLabel: 'One-time code sent to your phone',
  otpWrong: 'That code is not right. Try again.',
  verify: 'Verify',
  cancel: 'Cancel',
  approveHeading: 'Approve the payment',
  bankHeading: 'Approve the payment at {bank}',
  yourBank: 'your bank',
  voucherHeading: 'Your payment voucher',
  signedInAs: 'Signed in as',
  voucher: 'Voucher',
  payBy: 'Pay by',
  approve: 'Approve payment',
  decline: 'Decline',
  voucherPaid: 'Simulate: voucher paid',
  voucherRefused: 'Simulate: payment refused',
  payLater: 'Back to the store (pay later)',
  backToStore: 'Cancel and return to the store',
  sandboxNote: 'Sandbox',
};

const es: SandboxMessages = {
  acsTitle: 'Verifique su pago',
  acsHeading: 'Confirme que es usted',
  merchant: 'Comercio',
  amount: 'Importe',
  card: 'Tarjeta',
  order: 'Pedido',
  otpLabel: 'Código de un solo uso enviado a su teléfono',
  otpWrong: 'El código no es correcto. Inténtelo de nuevo.',
  verify: 'Verificar',
  cancel: 'Cancelar',
  approveHeading: 'Apruebe el pago',
  bankHeading: 'Apruebe el pago en {bank}',
  yourBank: 'su banco',
  voucherHeading: 'Su cupón de pago',
  signedInAs: 'Sesión iniciada como',
  voucher: 'Cupón',
  payBy: 'Pagar antes de',
  approve: 'Aprobar el pago',
  decline: 'Rechazar',
  voucherPaid: 'Simular: cupón pagado',
  voucherRefused: 'Simular: pago rechazado',
  payLater: 'Volver a la tienda (pagar más tarde)',
  backToStore: 'Cancelar y volver a la tienda',
  sandboxNote: 'Entorno de pruebas',
};

const pt: SandboxMessages = {
  acsTitle: 'Verifique seu pagamento',
  acsHeading: 'Confirme que é você',
  merchant: 'Loja',
  amount: 'Valor',
  card: 'Cartão',
  order: 'Pedido',
  otpLabel: 'Código de uso único enviado ao seu celular',
  otpWrong: 'O código não está correto. Tente novamente.',
  verify: 'Verificar',
  cancel: 'Cancelar',
  approveHeading: 'Aprove o pagamento',
  bankHeading: 'Aprove o pagamento no {bank}',
  yourBank: 'seu banco',
  voucherHeading: 'Seu boleto de pagamento',
  signedInAs: 'Conectado como',
  voucher: 'Boleto',
  payBy: 'Pagar até',
  approve: 'Aprovar pagamento',
  decline: 'Recusar',
  voucherPaid: 'Simular: boleto pago',
  voucherRefused: 'Simular: pagamento recusado',
  payLater: 'Voltar à loja (pagar depois)',
  backToStore: 'Cancelar e voltar à loja',
  sandboxNote: 'Sandbox',
};

const zh: SandboxMessages = {
  acsTitle: '验证您的付款',
  acsHeading: '确认是您本人',
  merchant: '商户',
  amount: '金额',
  card: '银行卡',
  order: '订单',
  otpLabel: '发送到您手机的一次性验证码',
  otpWrong: '验证码不正确，请重试。',
  verify: '验证',
  cancel: '取消',
  approveHeading: '批准付款',
  bankHeading: '在{bank}批准付款',
  yourBank: '您的银行',
  voucherHeading: '您的付款凭证',
  signedInAs: '登录账号',
  voucher: '凭证',
  payBy: '付款截止',
  approve: '批准付款',
  decline: '拒绝',
  voucherPaid: '模拟：凭证已付款',
  voucherRefused: '模拟：付款被拒',
  payLater: '返回商店（稍后付款）',
  backToStore: '取消并返回商店',
  sandboxNote: '沙盒环境',
};

const MESSAGES: Record<Lang, SandboxMessages> = { en, es, pt, zh };

export function sandboxMessages(lang: Lang): SandboxMessages {
  return MESSAGES[lang];
}
