/** A minimal browser for the platform over real HTTP: keeps cookies, follows redirects, posts forms with their CSRF token. */
export interface Page {
  status: number;
  url: string;
  html: string;
  headers: Headers;
  /** the paths redirected through, in order */
  redirects: string[];
}

export class PlatformClient {
  readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(readonly baseUrl: string, private readonly headers: Record<string, string> = {}) {}

  get(path: string): Promise<Page> {
    return this.request('GET', path);
  }

  /** Posts a form; the CSRF token of the last page is added unless `_csrf` is given (null: none at all). */
  post(path: string, fields: Record<string, string | string[]> = {}, csrf: string | null = this.csrf): Promise<Page> {
    const body = new URLSearchParams();
    if (csrf !== null) body.append('_csrf', csrf);
    for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) body.append(name, item);
    return this.request('POST', path, body);
  }

  private async request(method: string, path: string, body?: URLSearchParams): Promise<Page> {
    const redirects: string[] = [];
    let url = new URL(path, this.baseUrl).toString();
    for (;;) {
      const response = await fetch(url, {
        method,
        redirect: 'manual',
        headers: { ...this.headers, cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
        ...(body ? { body } : {}),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const [name = '', value = ''] = pair.split('=', 2);
        if (value) this.cookies.set(name, value);
        else this.cookies.delete(name);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.arrayBuffer();
        url = new URL(location, url).toString();
        redirects.push(new URL(url).pathname);
        method = 'GET';
        body = undefined;
        continue;
      }
      const html = await response.text();
      this.csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? this.csrf;
      return { status: response.status, url, html, headers: response.headers, redirects };
    }
  }
}

/** Undoes the template's HTML escaping, to compare page text with what a user reads. */
export function decode(html: string): string {
  return html.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
