/** A visitor's browser for tests: keeps cookies (by name; paths do not matter here) and never follows redirects. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly base: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(pathOrUrl: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(pathOrUrl, this.base), {
      redirect: 'manual',
      headers: { ...headers, ...(this.cookies.size ? { cookie: this.cookieHeader } : {}) },
    });
    this.keep(response);
    return response;
  }

  private keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((attribute) => /^\s*expires=Thu, 01 Jan 1970/i.test(attribute) || /^\s*max-age=0$/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** The Location of a redirect, resolved against the base URL. */
export function location(response: Response, base: string): URL {
  const value = response.headers.get('location');
  if (!value) throw new Error(`expected a redirect, got ${response.status}`);
  return new URL(value, base);
}
