// The sandbox issuer's 3-D Secure challenge (the ACS): which one-time codes pass, and what the
// issuer tells the gateway. The page and its completion are the sandbox's own surface, served by
// the gateway in sandbox mode only; a real connector completes through its processor instead.

/** The documented codes; any other is "not right, try again". */
export const ACS_CODES = { pass: '1234', fail: '0000' } as const;

/** EMV 3-D Secure challenge window sizes (challenge_window_size), width × height in CSS pixels. */
export const CHALLENGE_WINDOWS = {
  '01': '250 × 400',
  '02': '390 × 400',
  '03': '500 × 600',
  '04': '600 × 400',
  '05': 'full screen',
} as const;
export type ChallengeWindow = keyof typeof CHALLENGE_WINDOWS;
/** When the request names none: full screen, the size of the page the shopper was sent to. */
export const DEFAULT_WINDOW: ChallengeWindow = '05';

export function challengeWindowOf(requested: unknown): ChallengeWindow {
  return typeof requested === 'string' && requested in CHALLENGE_WINDOWS ? (requested as ChallengeWindow) : DEFAULT_WINDOW;
}

export interface ChallengeResult {
  readonly authenticated: boolean;
  /** The `threeds_result` text the merchant receives. */
  readonly threeDS: string;
}

/** The cardholder's answer: a result, or undefined when the code is neither documented one. */
export function answerChallenge(answer: { readonly cancel: boolean; readonly code: string }): ChallengeResult | undefined {
  if (answer.cancel) return { authenticated: false, threeDS: 'challenge: cancelled by the cardholder' };
  if (answer.code === ACS_CODES.pass) return { authenticated: true, threeDS: 'challenge: authenticated (eci 05)' };
  if (answer.code === ACS_CODES.fail) return { authenticated: false, threeDS: 'challenge: failed' };
  return undefined;
}
