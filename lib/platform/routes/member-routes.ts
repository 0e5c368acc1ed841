import type { Context } from 'koa';
import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { translator } from '../../i18n/catalogue.js';
import { browserLanguage } from '../../i18n/negotiate.js';
import { createMailer, type Mailer } from '../../mail/mailer.js';
import { Refusal } from '../../refusal.js';
import type { PlatformServices } from '../services.js';
import {
  INVITATION_SECONDS,
  invitationUrl,
  inviteMember,
  pendingInvitations,
  withdrawInvitation,
} from '../../webmasters/invitations.js';
import { changeMemberRole, listMembers, removeMember } from '../../webmasters/members.js';
import { ROLES, type Role } from '../../webmasters/roles.js';
import { ID_PATTERN } from '../../websites/schemas/path-parameters.js';
import { accountOf, originOf, PLATFORM_PATH, webmasterOf } from '../authentication.js';
import { formatTimestamp, renderPage } from '../page.js';
import { PlatformRoutes } from '../route-table.js';
import { endSessions } from '../sessions.js';

const MEMBERS_PATH = `${PLATFORM_PATH}/members`;
const NOTICES = ['invited', 'role', 'removed', 'withdrawn'] as const;
const ID = new RegExp(ID_PATTERN);
const idParameter = (value: string | undefined): number => (value !== undefined && ID.test(value) ? Number(value) : 0);

const validInvite = compileSchema<{ email: string; role: Role; _csrf: string }>({
  type: 'object',
  required: ['email', 'role', '_csrf'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    role: { type: 'string', enum: [...ROLES] },
    ...CSRF_FIELD,
  },
});

const validRole = compileSchema<{ role: Role; _csrf: string }>({
  type: 'object',
  required: ['role', '_csrf'],
  additionalProperties: false,
  properties: { role: { type: 'string', enum: [...ROLES] }, ...CSRF_FIELD },
});

/**
 * The account's members (docs/team.md): the list with roles, invitations by mail, role changes and removals. Who may
 * do what is the domain's rule (lib/webmasters/members.ts), checked under the account's lock: the page only leaves out
 * the buttons a role cannot use. A removed member's sessions end here, at once, on every instance.
 */
export function memberRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const mailer: Mailer | undefined = runtime.config.mail && createMailer(runtime.config.mail, runtime.log);
  const invitesPerAccount = runtime.rateLimits.limiter('platform-invite-account');
  const actorOf = (ctx: Context) => ({ webmasterId: webmasterOf(ctx)!.id, origin: originOf(ctx) });

  /** A refusal to show: the domain's sentence, or a catalogue key for the form's own problems. */
  async function show(
    ctx: Context,
    failed?: { values: Record<string, unknown>; message?: string; key?: string },
    status = 200,
  ): Promise<void> {
    const accountId = accountOf(ctx);
    const [members, invitations] = await Promise.all([
      listMembers(runtime.db, accountId),
      pendingInvitations(runtime.db, runtime.clock, accountId),
    ]);
    renderPage(
      ctx,
      'members.njk',
      {
        members: members.map((member) => ({
          ...member,
          since: formatTimestamp(member.since),
          founder: member.webmasterId === accountId,
        })),
        invitations: invitations.map((invitation) => ({
          ...invitation,
          expiresAt: formatTimestamp(invitation.expiresAt),
        })),
        roles: ROLES,
        canInvite: Boolean(mailer),
        failed,
        notice: NOTICES.find((notice) => notice === ctx.query.saved),
      },
      status,
    );
  }

  /** Runs a change to the members: a refusal of the domain (a rule a form cannot show) is shown above the list. */
  async function change(
    ctx: Context,
    values: Record<string, unknown>,
    run: () => Promise<unknown>,
    notice: (typeof NOTICES)[number],
  ): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return show(ctx, { values, message: error.message }, error.kind === 'not_permitted' ? 403 : 400);
    }
    seeOther(ctx, `${MEMBERS_PATH}?saved=${notice}`, { noStore: true });
  }

  routes.get('/members', 'view', (ctx) => show(ctx));

  routes.post('/members/invite', 'members', async (ctx) => {
    const form = readForm(ctx, validInvite);
    const values = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (!form || !mailer)
      return show(ctx, { values, key: mailer ? 'platform.members.error.invite' : 'platform.members.noMail' }, 400);
    const webmaster = webmasterOf(ctx)!;
    await invitesPerAccount.consume(String(accountOf(ctx)));
    await change(
      ctx,
      values,
      async () => {
        const { token, invitation } = await inviteMember(runtime.db, runtime.clock, accountOf(ctx), form, {
          ...actorOf(ctx),
          role: webmaster.account!.role,
        });
        const t = translator(browserLanguage(ctx));
        const brand = runtime.config.branding.name;
        const link = invitationUrl(runtime.config.issuer, token);
        // Mailed after the answer: the link goes to the invited mailbox only, never to the page or the inviter.
        void mailer
          .send({
            to: invitation.email,
            subject: t('platform.members.mail.subject', { brand, account: webmaster.account!.email }),
            text: t('platform.members.mail.text', {
              brand,
              account: webmaster.account!.email,
              role: t(`platform.role.${invitation.role}`),
              link,
              hours: INVITATION_SECONDS / 3600,
            }),
          })
          .catch((error: unknown) => runtime.log.warn('invitation not sent', { error: (error as Error).message }));
      },
      'invited',
    );
  });

  routes.post('/members/:member/role', 'members', async (ctx) => {
    const form = readForm(ctx, validRole);
    const values = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (!form) return show(ctx, { values, key: 'platform.members.error.role' }, 400);
    await change(
      ctx,
      values,
      () =>
        changeMemberRole(
          runtime.db,
          runtime.clock,
          accountOf(ctx),
          idParameter(ctx.params.member),
          form.role,
          actorOf(ctx),
          originOf(ctx),
        ),
      'role',
    );
  });

  routes.post('/members/:member/remove', 'members', async (ctx) => {
    const memberId = idParameter(ctx.params.member);
    await change(
      ctx,
      {},
      async () => {
        await removeMember(runtime.db, runtime.clock, accountOf(ctx), memberId, actorOf(ctx), originOf(ctx));
        await endSessions(runtime.db, memberId);
      },
      'removed',
    );
  });

  // Leaving needs no permission beyond membership: a viewer may leave too (the last owner may not: the domain's rule).
  routes.post('/members/leave', 'view', async (ctx) => {
    await change(
      ctx,
      {},
      () => removeMember(runtime.db, runtime.clock, accountOf(ctx), webmasterOf(ctx)!.id, actorOf(ctx), originOf(ctx)),
      'removed',
    );
  });

  routes.post('/invitations/:invitation/withdraw', 'members', async (ctx) => {
    await change(
      ctx,
      {},
      () =>
        withdrawInvitation(
          runtime.db,
          runtime.clock,
          accountOf(ctx),
          idParameter(ctx.params.invitation),
          originOf(ctx),
        ),
      'withdrawn',
    );
  });

  return routes;
}
