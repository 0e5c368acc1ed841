/**
 * A browser without a JavaScript engine, for tests that walk the service's pages over real HTTP: a cookie jar per
 * origin honouring Path, Expires and Max-Age; redirects handled by hand (followed up to a page, or stopped before
 * chosen origins such as a website's redirect_uri); HTML forms read from pages and submitted with their `_csrf`.
 */

/** One answer of the service, read to the end. */
export interface Page {
  /** the address that answered */
  url: URL;
  status: number;
  headers: Headers;
  html: string;
  /** every address redirected through on the way here, in order */
  redirects: URL[];
  /** set when the navigation stopped at a redirect it did not follow: where that redirect pointed */
  location?: URL;
}

export interface Form {
  action: URL;
  method: 'GET' | 'POST';
  /** the attributes of the <form> start tag (id, class, …) */
  attributes: Record<string, string>;
  /** every named field's default value: hidden inputs (`_csrf`), text values, checked boxes, selected options */
  fields: Record<string, string>;
  /** the submit buttons, in order, with their visible label */
  buttons: Array<{ name: string; value: string; label: string }>;
  /** radio and checkbox groups: name → possible values */
  choices: Record<string, string[]>;
}

export type Fields = Record<string, string | string[]>;

export interface RequestInit {
  method?: string;
  /** urlencoded fields, or multipart FormData */
  body?: Fields | URLSearchParams | FormData;
  /** the form token to send with a POST: by default the last one a page showed; null sends none */
  csrf?: string | null;
}

export interface FollowOptions {
  /** origins (or addresses on them) a redirect is not followed into; by default any origin but the base's */
  stopAt?: string | string[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };

/** Undoes the templates' HTML escaping, to compare page text with what a person reads. */
export const decodeHtml = (text: string): string =>
  text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_whole, entity: string) => ENTITIES[entity]!);

/** The attributes of one start tag, e.g. `<input type="hidden" name="_csrf" value="x">`. */
function attributesOf(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.replace(/^<\w+/, '').matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    const name = match[1]!.toLowerCase();
    if (found[name] === undefined) found[name] = decodeHtml(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return found;
}

const textOf = (html: string): string =>
  decodeHtml(html.replace(/<[^>]+>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();

interface StoredCookie {
  name: string;
  value: string;
  origin: string;
  path: string;
  /** epoch ms; undefined for a session cookie */
  expires?: number;
}

/** RFC 6265 §5.1.4: a cookie without Path belongs to the directory of the address that set it. */
const defaultPath = (url: URL): string => {
  const cut = url.pathname.lastIndexOf('/');
  return cut <= 0 ? '/' : url.pathname.slice(0, cut);
};

const pathMatches = (requestPath: string, cookiePath: string): boolean =>
  requestPath === cookiePath || requestPath.startsWith(cookiePath.endsWith('/') ? cookiePath : `${cookiePath}/`);

/** Cookies per origin, name and path, as a browser keeps them for the cookies our servers set. */
export class CookieJar {
  private cookies: StoredCookie[] = [];

  private live(): StoredCookie[] {
    const now = Date.now();
    this.cookies = this.cookies.filter((cookie) => cookie.expires === undefined || cookie.expires > now);
    return this.cookies;
  }

  /** Stores (or, when expired, removes) the cookies a response sets. */
  keep(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...rest] = line.split(';');
      const at = pair.indexOf('=');
      const attributes = new Map(
        rest.map((part) => {
          const eq = part.indexOf('=');
          return eq < 0
            ? [part.trim().toLowerCase(), '']
            : [part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim()];
        }),
      );
      const path = attributes.get('path')?.startsWith('/') ? attributes.get('path')! : defaultPath(url);
      const maxAge = attributes.get('max-age');
      const expiresAt = attributes.get('expires');
      // Max-Age wins over Expires (RFC 6265 §5.3 step 3).
      const expires =
        maxAge !== undefined
          ? Date.now() + Number(maxAge) * 1000
          : expiresAt !== undefined
            ? Date.parse(expiresAt)
            : undefined;
      this.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim(), url, path, expires);
    }
  }

  /** Sets a cookie as if `url`'s origin had; an empty value or a past expiry removes it. */
  set(name: string, value: string, url: URL | string, path = '/', expires?: number): void {
    const origin = new URL(url).origin;
    this.cookies = this.cookies.filter(
      (cookie) => !(cookie.origin === origin && cookie.name === name && cookie.path === path),
    );
    if (value !== '' && (expires === undefined || expires > Date.now()))
      this.cookies.push({ name, value, origin, path, ...(expires === undefined ? {} : { expires }) });
  }

  /** The Cookie header a browser sends to `url` (more specific paths first). */
  header(url: URL | string): string {
    const target = new URL(url);
    return this.live()
      .filter((cookie) => cookie.origin === target.origin && pathMatches(target.pathname, cookie.path))
      .sort((a, b) => b.path.length - a.path.length)
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  /** The value of the cookie `name` (any origin or path), if the jar holds one. */
  get(name: string): string | undefined {
    return this.live().find((cookie) => cookie.name === name)?.value;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Forgets every cookie called `name` (e.g. to submit a form without its CSRF cookie). */
  delete(name: string): void {
    this.cookies = this.cookies.filter((cookie) => cookie.name !== name);
  }
}

/** Urlencoded fields; a list value repeats the name, as checkboxes do. */
function encode(fields: Fields): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) body.append(name, item);
  return body;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class Browser {
  readonly cookies = new CookieJar();
  /** every request made, for failure messages and for tests that look at an earlier hop */
  readonly history: Array<{ method: string; url: URL; status: number }> = [];
  /** the last HTML a response carried */
  html = '';
  /** the last form token a page showed: what a POST carries by default */
  private token: string | undefined;

  /**
   * `base` resolves relative addresses and, unless `stopAt` says otherwise, is the only origin redirects are
   * followed into; `headers` go with every request (e.g. accept-language).
   */
  constructor(
    readonly base?: string,
    private readonly options: { headers?: Record<string, string> } & FollowOptions = {},
  ) {}

  /** The form token of the last HTML page. */
  get csrf(): string {
    if (this.token === undefined) throw new Error('no form token on any page yet');
    return this.token;
  }

  /** A trace of the requests made, one per line. */
  trail(): string {
    return this.history.map(({ method, url, status }) => `${method} ${url.href} -> ${status}`).join('\n');
  }

  /** One request, no redirect followed; a POST carries the last page's form token unless told otherwise. */
  async request(address: URL | string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(address, this.base);
    url.hash = '';
    const method = init.method ?? (init.body ? 'POST' : 'GET');
    const headers: Record<string, string> = { ...this.options.headers };
    const cookie = this.cookies.header(url);
    if (cookie) headers.cookie = cookie;
    let body: URLSearchParams | FormData | undefined;
    if (init.body instanceof FormData || init.body instanceof URLSearchParams) body = init.body;
    else if (init.body) body = encode(init.body);
    if (method === 'POST') {
      body ??= new URLSearchParams();
      const token = init.csrf === undefined ? this.token : init.csrf;
      if (token !== null && token !== undefined && !body.has('_csrf')) body.append('_csrf', token);
    }
    const response = await fetch(url, { method, redirect: 'manual', headers, ...(body ? { body } : {}) });
    this.cookies.keep(url, response);
    this.history.push({ method, url, status: response.status });
    if ((response.headers.get('content-type') ?? '').includes('text/html')) {
      this.html = await response.clone().text();
      this.token = csrfIn(this.html) ?? this.token;
    }
    return response;
  }

  /**
   * Follows `response`'s redirects as a browser does (303, and 301/302 after a POST, become GET; 307/308 resend the
   * request) until a page answers or a redirect points at an origin it must stop at.
   */
  async follow(first: Response, options: FollowOptions = {}, resend?: RequestInit): Promise<Page> {
    const stops = this.stopsFor(options);
    const redirects: URL[] = [];
    let response = first;
    let url = new URL(first.url);
    let again = resend;
    for (let hops = 0; hops < 20; hops++) {
      const header = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || header === null) {
        return { url, status: response.status, headers: response.headers, html: await response.text(), redirects };
      }
      const next = new URL(header, url);
      if (stops(next))
        return {
          url,
          status: response.status,
          headers: response.headers,
          html: await response.text(),
          redirects,
          location: next,
        };
      await response.arrayBuffer();
      again = response.status === 307 || response.status === 308 ? again : undefined;
      redirects.push(next);
      url = next;
      response = await this.request(next, again ?? {});
    }
    throw new Error(`too many redirects:\n${this.trail()}`);
  }

  /** Requests `address` and follows its redirects. */
  async navigate(address: URL | string, init: RequestInit & FollowOptions = {}): Promise<Page> {
    const { stopAt, ...request } = init;
    return this.follow(await this.request(address, request), { stopAt }, request);
  }

  open(address: URL | string, options: FollowOptions = {}): Promise<Page> {
    return this.navigate(address, options);
  }

  /** Posts urlencoded `fields` (with the last page's form token unless `csrf` says otherwise) and follows the redirects. */
  post(
    address: URL | string,
    fields: Fields = {},
    options: FollowOptions & { csrf?: string | null } = {},
  ): Promise<Page> {
    return this.navigate(address, { method: 'POST', body: fields, ...options });
  }

  /** Submits `form` with its own fields (its `_csrf` among them), `values` over them, and the given button. */
  submit(
    form: Form,
    values: Fields = {},
    button?: { name: string; value: string },
    options: FollowOptions = {},
  ): Promise<Page> {
    const fields: Fields = { ...form.fields, ...values, ...(button?.name ? { [button.name]: button.value } : {}) };
    if (form.method === 'POST')
      return this.navigate(form.action, { method: 'POST', body: fields, csrf: null, ...options });
    const target = new URL(form.action);
    target.search = encode(fields).toString();
    return this.navigate(target, options);
  }

  private stopsFor(options: FollowOptions): (next: URL) => boolean {
    const stopAt = options.stopAt ?? this.options.stopAt;
    if (stopAt !== undefined) {
      const origins = [stopAt].flat().map((address) => new URL(address).origin);
      return (next) => origins.includes(next.origin);
    }
    const home = this.base === undefined ? undefined : new URL(this.base).origin;
    return (next) => home !== undefined && next.origin !== home;
  }
}

/** Every <form> of a page. */
export function formsOf(page: Page): Form[] {
  return [...page.html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map(([, open = '', body = '']) => {
    const attributes = attributesOf(open);
    const fields: Record<string, string> = {};
    const choices: Record<string, string[]> = {};
    const buttons: Form['buttons'] = [];
    for (const [input] of body.matchAll(/<input\b[^>]*>/gi)) {
      const { name, value = '', type = 'text', checked } = attributesOf(input);
      if (!name) continue;
      if (type === 'radio' || type === 'checkbox') {
        (choices[name] ??= []).push(value || 'on');
        if (checked !== undefined) fields[name] = value || 'on';
      } else if (type === 'submit') buttons.push({ name, value, label: value });
      else if (type !== 'file') fields[name] = value;
    }
    for (const [, select = '', options = ''] of body.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/gi)) {
      const { name } = attributesOf(select);
      const all = [...options.matchAll(/<option\b([^>]*)>/gi)].map(([, tag = '']) => attributesOf(tag));
      const chosen = all.find((option) => option.selected !== undefined) ?? all[0];
      if (name && chosen) fields[name] = chosen.value ?? '';
    }
    for (const [, name = '', inner = ''] of body.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi)) {
      const attributesOfArea = attributesOf(name);
      if (attributesOfArea.name) fields[attributesOfArea.name] = decodeHtml(inner);
    }
    for (const [, tag = '', inner = ''] of body.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)) {
      const { name = '', value = '', type = 'submit' } = attributesOf(tag);
      if (type === 'submit') buttons.push({ name, value, label: textOf(inner) });
    }
    const action = new URL(attributes.action || page.url.href, page.url);
    return {
      action,
      method: (attributes.method ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET',
      attributes,
      fields,
      buttons,
      choices,
    };
  });
}

/** The first form matching every criterion given: its action (a path suffix, or a pattern), its id, a submit button's label. */
export function formOf(page: Page, which: { action?: string | RegExp; id?: string; button?: string } = {}): Form {
  const form = formsOf(page).find(
    (candidate) =>
      (which.action === undefined ||
        (typeof which.action === 'string'
          ? candidate.action.pathname.endsWith(which.action)
          : which.action.test(candidate.action.href))) &&
      (which.id === undefined || candidate.attributes.id === which.id) &&
      (which.button === undefined || candidate.buttons.some((button) => button.label.includes(which.button!))),
  );
  if (!form)
    throw new Error(
      `no form ${JSON.stringify(which)} on ${page.url.href} (status ${page.status}):\n${page.html.slice(0, 3000)}`,
    );
  return form;
}

/** The address of the first link whose text contains `text`. */
export function linkWithText(page: Page, text: string): URL {
  for (const [, tag = '', inner = ''] of page.html.matchAll(/<a\b([^>]*)>([\s\S]*?)<\/a>/gi)) {
    const { href } = attributesOf(tag);
    if (href !== undefined && textOf(inner).includes(text)) return new URL(href, page.url);
  }
  throw new Error(`no link "${text}" on ${page.url.href}`);
}

/** The addresses of the links with the given class, in order. */
export function linksWithClass(page: Page, className: string): URL[] {
  return [...page.html.matchAll(/<a\b([^>]*)>/gi)]
    .map(([, tag = '']) => attributesOf(tag))
    .filter((link) => link.href !== undefined && (link.class ?? '').split(/\s+/).includes(className))
    .map((link) => new URL(link.href!, page.url));
}

const csrfIn = (html: string): string | undefined => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** The form token of a page. */
export function csrfOf(page: Page | string): string {
  const token = csrfIn(typeof page === 'string' ? page : page.html);
  if (!token) throw new Error('no form token on the page');
  return token;
}

/** Where a redirect points: a page stopped at a redirect, or a raw response, resolved against its own address. */
export function locationOf(answer: Page | Response): URL {
  if ('redirects' in answer) {
    if (!answer.location)
      throw new Error(
        `expected a redirect, got page ${answer.url.href} (${answer.status}):\n${answer.html.slice(0, 2000)}`,
      );
    return answer.location;
  }
  const header = answer.headers.get('location');
  if (header === null) throw new Error(`expected a redirect, got ${answer.status}`);
  return new URL(header, answer.url);
}

/** The paths redirected through on the way to a page. */
export const redirectPaths = (page: Page): string[] => page.redirects.map((url) => url.pathname);
