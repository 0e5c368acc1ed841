/**
 * What a domain refusal is about. The domain names it; each surface decides how it answers it (every surface's
 * error shape takes its status from lib/http/errors.ts describeError).
 */
export type RefusalKind =
  /** the input breaks a rule (its message says which) */
  | 'invalid'
  /** what was asked for does not exist, or not for this caller */
  | 'not_found'
  /** it exists but belongs to someone else */
  | 'not_permitted'
  /** the request is well formed but the state it meets refuses it (a second configuration, a disabled one) */
  | 'conflict';

/** A rule of the domain said no, with a message safe to show the caller. */
export class Refusal extends Error {
  override name = 'Refusal';
  constructor(
    readonly kind: RefusalKind,
    message: string,
  ) {
    super(message);
  }
}
