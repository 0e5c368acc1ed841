interface Cookie {
  name: string;
  value: string;
  origin: string;
  path: string;
}

/**
 * A visitor's browser across two servers on loopback: cookies are kept per origin and path (oidc-provider scopes
 * its interaction cookie to the interaction's path, and both servers use the same cookie names), redirects are
 * followed one at a time so a test sees every hop, and a 307 re-sends the form as browsers do.
 */
export class Browser {
  private cookies: Cookie[] = [];
  /** every URL requested, in order */
  readonly visited: URL[] = [];

  async request(url: URL | string, init: { method?: 'GET' | 'POST'; form?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url);
    target.hash = '';
    this.visited.push(target);
    const cookie = this.cookies
      .filter((c) => c.origin === target.origin && (target.pathname === c.path || target.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    const response = await fetch(target, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        'accept-language': 'en',
        ...(cookie ? { cookie } : {}),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    this.keep(target, response);
    return response;
  }

  /**
   * Follows redirects from `response` until a page answers or the next hop leaves for an origin in `stopAt` (the
   * website's redirect_uri, which nothing serves here, or the provider a test wants to stop before). Returns the last response and the URL it came from (with any fragment).
   */
  async follow(response: Response, from: URL, stopAt: string | string[] = [], form?: Record<string, string>): Promise<{ response: Response; url: URL }> {
    const stops = (Array.isArray(stopAt) ? stopAt : [stopAt]).map((address) => new URL(address).origin);
    let current = response;
    let url = from;
    let body = form;
    while ([301, 302, 303, 307, 308].includes(current.status)) {
      const next = new URL(current.headers.get('location') ?? '', url);
      if (stops.includes(next.origin)) return { response: current, url: next };
      body = current.status === 307 ? body : undefined;
      url = next;
      current = await this.request(next, body ? { method: 'POST', form: body } : {});
    }
    return { response: current, url };
  }

  private keep(from: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) || '/';
      const expired = attributes.some((a) => /^expires=Thu, 01 Jan 1970/i.test(a) || /^max-age=0$/i.test(a)) || value === '';
      this.cookies = this.cookies.filter((c) => !(c.origin === from.origin && c.name === name && c.path === path));
      if (!expired) this.cookies.push({ name, value, origin: from.origin, path });
    }
  }
}

/** The hidden form token of a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no form token on the page');
  return match[1];
}

/** The action of the form whose submit button says `label` (or of the first form). */
export function formAction(html: string, label?: string): string {
  const forms = [...html.matchAll(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = label ? forms.find((match) => match[2]?.includes(label)) : forms[0];
  if (!form?.[1]) throw new Error(`no form ${label ?? ''} on the page`);
  return form[1].replaceAll('&amp;', '&');
}
