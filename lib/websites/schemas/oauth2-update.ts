import { redirectUrisField, statusField } from './fields.js';

/** Body of PATCH /external/website/{website_id}/oauth2/{environment}: at least one field. */
export const oauth2UpdateSchema = {
  title: 'OAuth2Update',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    redirectUris: redirectUrisField,
    status: statusField,
  },
} as const;
