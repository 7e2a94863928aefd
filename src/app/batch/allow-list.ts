// The read operations answer only callers whose IP address the account registered
// (`acquiro ips add`). The address is the socket's, or the one a
// trusted proxy forwarded (ACQUIRO_TRUSTED_PROXIES; Fastify's request.ip).
import { AppError } from '../../domain/errors.ts';
import { inBlock } from '../../domain/ip.ts';
import { accountIpList } from '../../db/repositories/accounts.ts';
import type { Deps } from '../context.ts';

export async function assertRegisteredIp(deps: Pick<Deps, 'database'>, accountId: string, callerIp: string): Promise<void> {
  const cidrs = await accountIpList(deps.database.db, accountId);
  if (!cidrs.some((cidr) => inBlock(cidr, callerIp))) throw new AppError('ip_not_allowed');
}
