// Response of the domain verification operations (beyond the specification's ten operations), published in openapi.json.

const timestamp = { type: ['string', 'null'], description: 'ISO 8601 time, or null' } as const;

export const domainVerificationSchema = {
  title: 'DomainVerification',
  type: 'object',
  additionalProperties: false,
  required: ['domain', 'verified', 'verifiedBy', 'verifiedAt', 'checkedAt', 'token', 'dns', 'file'],
  description:
    'Publish `token` as a DNS TXT record on `dns.name`, or as a line of the file at `file.url`, then call the check operation. Visitors see whether the domain is verified.',
  properties: {
    domain: { type: 'string' },
    verified: { type: 'boolean' },
    verifiedBy: {
      type: ['string', 'null'],
      enum: ['published', 'operator', null],
      description:
        'How the domain was verified: `published` (the token found in DNS or the file), `operator` (the operator of this service vouched for it; a check leaves it verified); null while not verified.',
    },
    verifiedAt: timestamp,
    checkedAt: timestamp,
    token: { type: 'string', pattern: '^age-provider-verification=[A-Za-z0-9_-]+$' },
    dns: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'type', 'value'],
      properties: { name: { type: 'string' }, type: { type: 'string', enum: ['TXT'] }, value: { type: 'string' } },
    },
    file: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'content'],
      properties: { url: { type: 'string' }, content: { type: 'string' } },
    },
  },
} as const;
