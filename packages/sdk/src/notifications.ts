// Checks a notification body posted to notify_url: the signature over the whole body, and a
// notify_time within the tolerance of the receiver's clock (300 s), so that a captured
// notification cannot be replayed later.
import type { Notification } from './events.js';
import { verify } from './signature.js';

export interface NotificationCheck {
  /** The receiver's clock; defaults to now. */
  readonly now?: Date;
  /** How far notify_time may be from `now`, either way; 300 seconds by default. */
  readonly toleranceSeconds?: number;
}

/**
 * Whether `body` (the parsed JSON of the POST) is a notification signed with the secret key
 * (or one of the keys, while a rotated key is deployed) and sent within the tolerance.
 */
export function verifyNotification(body: unknown, secretKey: string | readonly string[], options: NotificationCheck = {}): body is Notification {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const sent = (body as { notify_time?: unknown }).notify_time;
  const seconds = typeof sent === 'number' ? sent : typeof sent === 'string' && /^[0-9]+$/.test(sent) ? Number(sent) : NaN;
  if (!Number.isSafeInteger(seconds) || Math.abs(now - seconds) > tolerance) return false;
  return verify(body, secretKey);
}
