// Why a staff request was refused, in words for the member (the portal shows it beside the field)
// or the operator (the CLI prints it). Portal refusals are not merchant API answers: no catalogue code.
export class PortalRefusal extends Error {
  /** The form field to show the message beside, if one. */
  readonly field: string | undefined;
  /** 400 bad input, 403 not allowed, 404 not found (another merchant's ids too), 409 state. */
  readonly status: 400 | 403 | 404 | 409;
  constructor(message: string, options: { field?: string; status?: 400 | 403 | 404 | 409 } = {}) {
    super(message);
    this.name = 'PortalRefusal';
    this.field = options.field;
    this.status = options.status ?? 400;
  }
}

/** Who asked, for the audit log: a member in the portal, or the command line. */
export interface Actor {
  readonly userId: string | null;
  readonly email: string;
  readonly ip: string;
}

export const CLI_ACTOR: Actor = { userId: null, email: 'cli', ip: 'cli' };
