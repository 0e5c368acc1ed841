import { redirectUrisField } from './fields.js';

/** Body of POST /external/website/{website_id}/oauth2/{environment} (spec 4.2 #7). */
export const oauth2CreateSchema = {
  title: 'OAuth2Create',
  type: 'object',
  additionalProperties: false,
  required: ['redirectUris'],
  properties: {
    redirectUris: redirectUrisField,
  },
} as const;
