/** The only scope there is (spec 4.1): reading the verification result. It is also the default. */
export const SCOPE = 'read';
