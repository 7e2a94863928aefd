// The one transition function. Every status change of a payment, a refund or a capture/void (and,
// later, subscriptions and payouts) is a `Transition` made here from the machine's table; the
// repositories take a Transition, never a bare status, so a move the table does not allow cannot
// be written: it is refused here, before any SQL, with ForbiddenTransition.

declare const transitionBrand: unique symbol;

/** A checked move `from` → `to` (or a write that keeps the state, `from` = `to`, via `stay`). */
export interface Transition<S extends string> {
  readonly machine: string;
  readonly from: S;
  readonly to: S;
  readonly [transitionBrand]: true;
}

/** A checked first state of a new row. */
export interface Entry<S extends string> {
  readonly machine: string;
  readonly to: S;
  readonly [transitionBrand]: true;
}

export class ForbiddenTransition extends Error {
  readonly machine: string;
  readonly from: string | null;
  readonly to: string;
  constructor(machine: string, from: string | null, to: string) {
    super(from === null ? `a ${machine} cannot start in ${to}` : `a ${machine} cannot move from ${from} to ${to}`);
    this.name = 'ForbiddenTransition';
    this.machine = machine;
    this.from = from;
    this.to = to;
  }
}

export interface StateMachine<S extends string> {
  readonly name: string;
  readonly states: readonly S[];
  readonly initial: readonly S[];
  /** Whether the table allows `from` → `to` (a state to itself only where the table lists it). */
  canMove(from: S, to: S): boolean;
  isFinal(state: S): boolean;
  isState(value: string): value is S;
  /** The transition function: a checked move, or ForbiddenTransition. */
  move(from: string, to: S): Transition<S>;
  /** A write that changes other columns but not the state. */
  stay(state: string): Transition<S>;
  /** The state a new row starts in, or ForbiddenTransition. */
  enter(to: S): Entry<S>;
}

export function defineStateMachine<const S extends string>(
  name: string,
  table: { readonly initial: readonly S[]; readonly next: Readonly<Record<S, readonly S[]>> },
): StateMachine<S> {
  const states = Object.keys(table.next) as S[];
  const isState = (value: string): value is S => Object.hasOwn(table.next, value);
  const canMove = (from: S, to: S) => table.next[from].includes(to);
  const made = <T>(value: object) => Object.freeze(value) as T;
  return {
    name,
    states,
    initial: table.initial,
    canMove,
    isFinal: (state) => table.next[state].length === 0,
    isState,
    move(from, to) {
      if (!isState(from) || !canMove(from, to)) throw new ForbiddenTransition(name, from, to);
      return made({ machine: name, from, to });
    },
    stay(state) {
      if (!isState(state)) throw new ForbiddenTransition(name, state, state);
      return made({ machine: name, from: state, to: state });
    },
    enter(to) {
      if (!table.initial.includes(to)) throw new ForbiddenTransition(name, null, to);
      return made({ machine: name, to });
    },
  };
}

/** The CHECK constraint's list of a machine's states, for migrations and their test. */
export function statesSql(machine: StateMachine<string>): string {
  return machine.states.map((state) => `'${state}'`).join(', ');
}
