// The exit codes of `acquiro` and `npm start` (sysexits.h where one fits); docs/operations.md lists them.

/** Refused by the database's content (an unknown account, a live-mode refusal). */
export const REFUSED = 1;
/** Refused arguments: nothing opened or changed. */
export const USAGE = 2;
/** A failure nobody expected: the database refused a statement, or a bug (EX_SOFTWARE). */
export const UNEXPECTED = 70;
/** The database could not be reached: try again once it is back (EX_TEMPFAIL). */
export const UNAVAILABLE = 75;
/** A configuration the process cannot start with (EX_CONFIG). */
export const CONFIG = 78;
