/**
 * A visitor without a browser engine: follows redirects, keeps cookies (by origin, name and path), and submits the
 * HTML forms of the pages it lands on, hidden fields (`_csrf`) included.
 */

interface StoredCookie {
  value: string;
  path: string;
}

export interface Page {
  url: URL;
  status: number;
  html: string;
}

export interface Form {
  action: URL;
  method: string;
  /** every named field's default value (checked radios, selected options, hidden inputs) */
  fields: Record<string, string>;
  /** the submit buttons' name=value pairs, in order */
  buttons: Array<{ name: string; value: string }>;
  /** names of the radio groups and their possible values */
  radios: Record<string, string[]>;
}

const decode = (text: string): string =>
  text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_whole, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[entity]!);

/** The attributes of one start tag, e.g. `<input type="hidden" name="_csrf" value="x">`. */
function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    const name = match[1]!.toLowerCase();
    if (found[name] === undefined) found[name] = decode(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return found;
}

/** The forms of a page; `tag` is the form's own start tag so callers can tell forms apart by their markup. */
export function parseForms(page: Page): Array<Form & { tag: string; body: string }> {
  return [...page.html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((match) => {
    const tag = match[1]!;
    const body = match[2]!;
    const form = attributes(tag);
    const fields: Record<string, string> = {};
    const radios: Record<string, string[]> = {};
    const buttons: Array<{ name: string; value: string }> = [];
    for (const [input] of body.matchAll(/<input\b[^>]*>/gi)) {
      const { name, value = '', type = 'text', checked } = attributes(input);
      if (!name) continue;
      if (type === 'radio' || type === 'checkbox') {
        (radios[name] ??= []).push(value || 'on');
        if (checked !== undefined) fields[name] = value || 'on';
      } else if (type === 'submit') buttons.push({ name, value });
      else fields[name] = value;
    }
    for (const [, selectTag, options] of body.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/gi)) {
      const { name } = attributes(selectTag!);
      if (!name) continue;
      const all = [...options!.matchAll(/<option\b([^>]*)>/gi)].map(([, optionTag]) => attributes(optionTag!));
      const chosen = all.find((option) => option.selected !== undefined) ?? all[0];
      if (chosen) fields[name] = chosen.value ?? '';
    }
    for (const [, buttonTag] of body.matchAll(/<button\b([^>]*)>/gi)) {
      const { name = '', value = '', type = 'submit' } = attributes(buttonTag!);
      if (type === 'submit') buttons.push({ name, value });
    }
    return { tag, body, action: new URL(form.action || page.url.href, page.url), method: (form.method || 'get').toLowerCase(), fields, buttons, radios };
  });
}

/** The href of every link on the page with the given class, resolved against the page. */
export function links(page: Page, className: string): URL[] {
  return [...page.html.matchAll(/<a\b([^>]*)>/gi)]
    .map(([, tag]) => attributes(tag!))
    .filter((link) => link.href && (link.class ?? '').split(/\s+/).includes(className))
    .map((link) => new URL(link.href!, page.url));
}

export class Visitor {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();
  /** every page and redirect visited, for failure messages */
  readonly trail: string[] = [];

  /**
   * `headers` go with every request; a redirect to `stopBefore` (an origin, e.g. a redirect_uri's that is not
   * listening) ends the request there, returning that URL as the page, unfetched.
   */
  constructor(private readonly options: { headers?: Record<string, string>; stopBefore?: string } = {}) {}

  private cookieHeader(url: URL): string | undefined {
    const cookies = this.jar.get(url.origin);
    if (!cookies) return undefined;
    const matching = [...cookies].filter(([, cookie]) => url.pathname === cookie.path || url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`));
    return matching.length ? matching.map(([key, cookie]) => `${key.split('\n')[0]}=${cookie.value}`).join('; ') : undefined;
  }

  private keep(url: URL, response: Response): void {
    const cookies = this.jar.get(url.origin) ?? new Map<string, StoredCookie>();
    this.jar.set(url.origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...rest] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const attrs = Object.fromEntries(rest.map((part) => {
        const eq = part.indexOf('=');
        return eq < 0 ? [part.trim().toLowerCase(), ''] : [part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim()];
      }));
      const path = attrs.path || '/';
      const expired = value === '' || attrs['max-age'] === '0' || (attrs.expires !== undefined && Date.parse(attrs.expires) <= Date.now());
      if (expired) cookies.delete(`${name}\n${path}`);
      else cookies.set(`${name}\n${path}`, { value, path });
    }
  }

  /** One request; follows redirects (as a browser does: 303 and 302 after POST become GET) up to a page. */
  async request(url: URL, init: { method?: string; body?: URLSearchParams } = {}): Promise<Page> {
    let current = url;
    let method = init.method ?? 'GET';
    let body = init.body;
    for (let hops = 0; hops < 20; hops += 1) {
      const cookie = this.cookieHeader(current);
      const response = await fetch(current, {
        method,
        redirect: 'manual',
        headers: { ...this.options.headers, ...(cookie ? { cookie } : {}), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(body ? { body } : {}),
      });
      this.keep(current, response);
      this.trail.push(`${method} ${current.href} -> ${response.status}`);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        current = new URL(location, current);
        if (current.origin === this.options.stopBefore) {
          await response.arrayBuffer();
          return { url: current, status: response.status, html: '' };
        }
        if (response.status !== 307 && response.status !== 308) {
          method = 'GET';
          body = undefined;
        }
        await response.arrayBuffer();
        continue;
      }
      return { url: current, status: response.status, html: await response.text() };
    }
    throw new Error(`too many redirects:\n${this.trail.join('\n')}`);
  }

  get(url: URL | string): Promise<Page> {
    return this.request(new URL(url));
  }

  /** Submits a form with its defaults, the given field values, and the given button (name=value) if any. */
  submit(form: Form, values: Record<string, string> = {}, button?: { name: string; value: string }): Promise<Page> {
    const data = new URLSearchParams({ ...form.fields, ...values });
    if (button?.name) data.set(button.name, button.value);
    if (form.method === 'post') return this.request(form.action, { method: 'POST', body: data });
    const target = new URL(form.action);
    target.search = data.toString();
    return this.request(target);
  }
}
