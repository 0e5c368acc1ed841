import { expect } from 'chai';
import { useApp } from '../helpers/app.js';

// The logos a website puts on its verify button (the logo must stay visible on the allowed backgrounds).

describe('logo assets for the verify button', () => {
  const app = useApp();

  for (const [variant, colour] of [
    ['on-dark', '#ffffff'],
    ['on-light', '#004db3'],
  ]) {
    it(`serves logo-${variant}.svg as an accessible SVG in ${colour}`, async () => {
      const response = await fetch(`${app.url}/static/logo-${variant}.svg`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('image/svg+xml');
      const svg = await response.text();
      expect(svg).to.match(/^<svg [^>]*role="img"/);
      expect(svg).to.match(/<title id="[^"]+">Age Provider<\/title>/);
      expect(svg).to.contain(`fill="${colour}"`);
      expect(svg).not.to.match(/<script|href="http/i);
    });
  }
});
