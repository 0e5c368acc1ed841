import { expect } from 'chai';
import type { TestApp } from '../../helpers/app.js';
import type { ClientFixture } from '../../helpers/fixtures.js';

/** A browser without JavaScript: keeps cookies, never follows redirects, posts forms as a browser would. */
export class Visitor {
  private readonly cookies = new Map<string, string>();
  /** the last HTML page seen, for its form token */
  html = '';

  constructor(readonly base: string) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return { ...extra, ...(cookie ? { cookie } : {}), 'accept-language': 'en' };
  }

  private async keep(response: Response): Promise<Response> {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(pair.slice(0, at).trim());
      else this.cookies.set(pair.slice(0, at).trim(), value);
    }
    if ((response.headers.get('content-type') ?? '').includes('html')) this.html = await response.clone().text();
    return response;
  }

  get csrf(): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(this.html);
    if (!match?.[1]) throw new Error('no form token on the last page');
    return match[1];
  }

  async get(path: string): Promise<Response> {
    return this.keep(await fetch(new URL(path, this.base), { redirect: 'manual', headers: this.headers() }));
  }

  /** Submits an urlencoded form with the page's token. */
  async post(path: string, fields: Record<string, string> = {}, token = this.csrf): Promise<Response> {
    const body = new URLSearchParams({ _csrf: token, ...fields });
    return this.keep(await fetch(new URL(path, this.base), {
      method: 'POST', redirect: 'manual', body, headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    }));
  }

  /** Submits a multipart form (a file input) with the page's token, as a browser does without JavaScript. */
  async postMultipart(path: string, fields: Record<string, string>, files: Record<string, { bytes: Buffer; type: string; name: string }>, token = this.csrf): Promise<Response> {
    const form = new FormData();
    form.set('_csrf', token);
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    for (const [name, file] of Object.entries(files)) form.set(name, new Blob([file.bytes], { type: file.type }), file.name);
    return this.keep(await fetch(new URL(path, this.base), { method: 'POST', redirect: 'manual', body: form, headers: this.headers() }));
  }

  /** Follows redirects (GET) until a page answers. */
  async follow(response: Response): Promise<Response> {
    let current = response;
    for (let hops = 0; current.status >= 300 && current.status < 400 && hops < 10; hops++) {
      current = await this.get(current.headers.get('location')!);
    }
    return current;
  }
}

export const formAction = (html: string, pattern: RegExp): string => {
  const actions = [...html.matchAll(/<form[^>]*action="([^"]+)"/g)].map((match) => match[1]!.replace(/&amp;/g, '&'));
  const found = actions.find((action) => pattern.test(action));
  if (!found) throw new Error(`no form posting to ${pattern} in ${actions.join(', ')}`);
  return found;
};

/** Starts a checker authorization, accepts the prompt and lands on the challenge named in `challenges`. */
export async function startChallenge(app: TestApp, client: ClientFixture, challenge: string): Promise<{ visitor: Visitor; uid: string; page: Response }> {
  const visitor = new Visitor(app.url);
  const query = new URLSearchParams({ client_id: client.clientId, redirect_uri: client.redirectUri, response_type: 'code', scope: 'read', state: 'st-1', challenges: challenge });
  const prompt = await visitor.follow(await visitor.get(`/v1/oauth2/checker?${query.toString()}`));
  expect(prompt.status, 'the prompt page').to.equal(200);
  const uid = /\/v1\/oauth2\/interaction\/([^/"]+)\/consent/.exec(visitor.html)?.[1];
  if (!uid) throw new Error('no interaction on the prompt page');
  const page = await visitor.follow(await visitor.post(`/v1/oauth2/interaction/${uid}/consent`, { decision: 'accept' }));
  return { visitor, uid, page };
}

/** From the result page: continue to the website, exchange the code, read Resources. */
export async function resourcesAfterPass(app: TestApp, client: ClientFixture, visitor: Visitor, uid: string): Promise<Record<string, unknown>> {
  const back = await visitor.post(`/v1/oauth2/interaction/${uid}/result/continue`);
  let current = back;
  for (let hops = 0; hops < 10; hops++) {
    const target = new URL(current.headers.get('location') ?? '', app.url);
    if (target.href.startsWith(client.redirectUri)) {
      const code = target.searchParams.get('code');
      expect(code, 'a code for the website').to.be.a('string');
      const token = await fetch(`${app.url}/v1/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: client.redirectUri }),
      });
      expect(token.status).to.equal(200);
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const resources = await fetch(`${app.url}/v1/oauth2/resources`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(resources.status).to.equal(200);
      return ((await resources.json()) as { resources: Record<string, unknown> }).resources;
    }
    expect(current.status, `redirect towards the website (at ${target.pathname})`).to.be.within(300, 399);
    current = await visitor.get(target.href);
  }
  throw new Error('never reached the website');
}
