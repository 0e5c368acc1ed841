/**
 * A minimal browser for the visitor's pages: a cookie jar honouring Path, manual redirects that stop at the first
 * address outside the service (the website's redirect_uri), and HTML forms read from the page and submitted.
 */

interface Cookie {
  name: string;
  value: string;
  path: string;
}

export interface Page {
  status: number;
  /** the address that answered */
  url: string;
  html: string;
  headers: Headers;
}

export interface Form {
  action: string;
  method: string;
  /** hidden and pre-filled fields, e.g. _csrf */
  fields: Record<string, string>;
  /** submit buttons: name → value */
  buttons: Array<{ name: string; value: string }>;
}

const decode = (text: string): string =>
  text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

const attribute = (tag: string, name: string): string | undefined => {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? decode(match[1]!) : undefined;
};

/** Every <form> of a page with its action, its pre-filled fields and its submit buttons. */
export function formsOf(html: string): Form[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(([, open = '', body = '']) => {
    const fields: Record<string, string> = {};
    for (const [input] of body.matchAll(/<input\b[^>]*>/g)) {
      const name = attribute(input, 'name');
      const type = attribute(input, 'type') ?? 'text';
      if (!name) continue;
      if ((type === 'radio' || type === 'checkbox') && !/\schecked\b/.test(input)) continue;
      fields[name] = attribute(input, 'value') ?? '';
    }
    for (const [, select = '', options = ''] of body.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
      const name = attribute(select, 'name');
      const selected = /<option\b[^>]*\sselected\b[^>]*>/.exec(options)?.[0] ?? /<option\b[^>]*>/.exec(options)?.[0];
      if (name && selected) fields[name] = attribute(selected, 'value') ?? '';
    }
    const buttons = [...body.matchAll(/<button\b([^>]*)>/g)]
      .map(([, tag = '']) => ({ name: attribute(` ${tag}`, 'name') ?? '', value: attribute(` ${tag}`, 'value') ?? '' }));
    return { action: attribute(` ${open}`, 'action') ?? '', method: (attribute(` ${open}`, 'method') ?? 'get').toUpperCase(), fields, buttons };
  });
}

/** The form whose action ends with `actionSuffix`. */
export function formWithAction(page: Page, actionSuffix: string): Form {
  const form = formsOf(page.html).find((candidate) => candidate.action.endsWith(actionSuffix));
  if (!form) throw new Error(`no form posting to …${actionSuffix} on ${page.url} (status ${page.status}):\n${page.html.slice(0, 3000)}`);
  return form;
}

/** The href of the first link whose text contains `text`. */
export function linkWithText(page: Page, text: string): string {
  for (const [, href = '', inner = ''] of page.html.matchAll(/<a\b[^>]*\shref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)) {
    if (decode(inner.replace(/<[^>]+>/g, '')).includes(text)) return decode(href);
  }
  throw new Error(`no link "${text}" on ${page.url}`);
}

/** Where a navigation ended: a page of the service, or a redirect to an address outside it (the website). */
export type Landing = { page: Page; left?: undefined } | { page?: undefined; left: URL };

export class Browser {
  private readonly jar = new Map<string, Cookie>();

  constructor(readonly base: string, readonly headers: Record<string, string> = {}) {}

  private cookieHeader(url: URL): string {
    return [...this.jar.values()]
      .filter((cookie) => url.pathname === cookie.path || url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  private store(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? url.pathname.replace(/\/[^/]*$/, '') ?? '/';
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()));
      const key = `${name};${path}`;
      if (expired || value === '') this.jar.delete(key);
      else this.jar.set(key, { name, value, path: path || '/' });
    }
  }

  /** Forgets every cookie of `name` (e.g. to submit a form without its CSRF cookie). */
  dropCookie(name: string): void {
    for (const [key, cookie] of this.jar) if (cookie.name === name) this.jar.delete(key);
  }

  /** One request, no redirect followed. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url, this.base);
    const headers: Record<string, string> = { ...this.headers };
    const cookie = this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(target, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    this.store(target, response);
    return response;
  }

  /** Follows redirects inside the service; stops at a page, or at a redirect that leaves it. */
  async navigate(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Landing> {
    let response = await this.request(url, init);
    let current = new URL(url, this.base);
    for (let hops = 0; hops < 20; hops++) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) {
        return { page: { status: response.status, url: current.toString(), html: await response.text(), headers: response.headers } };
      }
      await response.arrayBuffer();
      const next = new URL(location, current);
      if (next.origin !== new URL(this.base).origin) return { left: next };
      current = next;
      response = await this.request(next.toString());
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** Navigates and expects a page of the service. */
  async open(url: string): Promise<Page> {
    const landing = await this.navigate(url);
    if (!landing.page) throw new Error(`expected a page, left for ${landing.left.toString()}`);
    return landing.page;
  }

  /** Submits `form` with its pre-filled fields, `values`, and the named button. */
  async submit(form: Form, values: Record<string, string> = {}, button?: { name: string; value: string }): Promise<Landing> {
    const fields = { ...form.fields, ...values, ...(button ? { [button.name]: button.value } : {}) };
    return this.navigate(form.action, { method: form.method, form: fields });
  }
}
