export { brandingAssets, type BrandView } from './assets.js';
export { brandingSettings, type Branding, type BrandingOptions } from './settings.js';
