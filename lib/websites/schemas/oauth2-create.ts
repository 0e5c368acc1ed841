import { redirectUrisField } from './fields.js';

/** Body of POST /external/website/{website_id}/oauth2/{environment}. */
export const oauth2CreateSchema = {
  title: 'OAuth2Create',
  type: 'object',
  additionalProperties: false,
  required: ['redirectUris'],
  properties: {
    redirectUris: redirectUrisField,
  },
} as const;
