// Who is signed in to the portal: a member of one merchant's staff, with one role.
import type { Role } from '../../domain/members.ts';

export type { Role } from '../../domain/members.ts';

export interface Member {
  readonly userId: string;
  readonly merchantId: string;
  readonly email: string;
  readonly role: Role;
}
