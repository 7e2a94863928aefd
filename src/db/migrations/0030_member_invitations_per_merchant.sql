-- A portal invitation no longer tells the inviter whether its address is another merchant's
-- member. Sign-in takes the address alone, so an address still belongs to one member across the
-- gateway once that member can sign in (active, or disabled for good); but an invitation, whose
-- holder has not set a password yet, is unique only within its merchant. Inviting an address that
-- another merchant's staff uses is answered as any invitation, and the link is refused only when
-- used (src/app/portal/links.ts), to its holder.
DROP INDEX portal_users_email;
CREATE UNIQUE INDEX portal_users_email ON portal_users (lower(email)) WHERE status <> 'invited';
CREATE UNIQUE INDEX portal_users_merchant_email ON portal_users (merchant_id, lower(email));
