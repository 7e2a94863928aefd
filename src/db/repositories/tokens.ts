import { and, eq, inArray } from 'drizzle-orm';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { Executor } from '../client.ts';
import { cardTokens, payments } from '../schema.ts';

export type TokenRow = typeof cardTokens.$inferSelect;

/** A token is found only by the account that stored it. */
export async function findToken(db: Executor, accountId: string, id: string): Promise<TokenRow | null> {
  const [row] = await db.select().from(cardTokens).where(and(eq(cardTokens.accountId, accountId), eq(cardTokens.id, id)));
  return row ?? null;
}

/** Where a payment stands once its processor approved the card (later moves included). */
const APPROVED: readonly PaymentStatus[] = ['pending_review', 'authorised', 'captured', 'partially_refunded', 'refunded', 'cancelled'];

/**
 * Whether a payment of the account charging `token` was approved: the one that stored the card
 * first. A card kept before its payment's outcome (a challenge, a pending answer: a subscription
 * needs it) is chargeable only once that payment was approved, never when it failed. Read by the
 * card's fingerprint, whose index keeps it to the card's own payments.
 */
export async function tokenApproved(db: Executor, accountId: string, token: Pick<TokenRow, 'id' | 'fingerprint'>): Promise<boolean> {
  const [row] = await db
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.cardFingerprint, token.fingerprint), eq(payments.accountId, accountId), eq(payments.tokenId, token.id), inArray(payments.status, APPROVED)))
    .limit(1);
  return row !== undefined;
}

export interface SealedCardToken {
  readonly id: string;
  readonly ciphertext: string;
  readonly vaultKeyId: string;
  readonly brand: string;
  readonly bin: string;
  readonly last4: string;
  readonly length: number;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly fingerprint: string;
}

/** Stores a card the vault has sealed, in the caller's transaction. */
export async function insertCardToken(tx: Executor, accountId: string, token: SealedCardToken): Promise<void> {
  const { ciphertext, length, ...rest } = token;
  await tx.insert(cardTokens).values({ ...rest, accountId, panCiphertext: ciphertext, panLength: length });
}

/** Removes a stored card of the account, in the caller's transaction. */
export async function deleteCardToken(tx: Executor, accountId: string, id: string): Promise<void> {
  await tx.delete(cardTokens).where(and(eq(cardTokens.accountId, accountId), eq(cardTokens.id, id)));
}
