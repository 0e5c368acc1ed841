import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

const { Prompt, Check } = interactionPolicy;

/**
 * Every authorization asks for an interaction: a token must mean "verified in THIS authorization", never
 * "this browser has a session". The prompt is satisfied only when the interaction just finished with a grant
 * (the interaction pages record the verification, link it to a fresh grant, then resume the request).
 */
const finishedWithGrant = (ctx: KoaContextWithOIDC): boolean =>
  ctx.oidc.route === 'resume' &&
  typeof ctx.oidc.result?.consent?.grantId === 'string' &&
  Boolean(ctx.oidc.session?.accountId);

export function verificationPolicy(): InstanceType<typeof Prompt>[] {
  return [
    new Prompt(
      { name: 'verify', requestable: false },
      new Check('verification_required', 'age verification is required', 'interaction_required', (ctx) =>
        finishedWithGrant(ctx) ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
      ),
    ),
  ];
}

/** Only the grant the interaction just issued counts; grants of earlier authorizations are never reused. */
export async function loadGrantOfThisInteraction(ctx: KoaContextWithOIDC) {
  const grantId = ctx.oidc.result?.consent?.grantId;
  return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
}
