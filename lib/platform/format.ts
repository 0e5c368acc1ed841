/** A timestamp as the platform shows it: unambiguous in every language, e.g. "2026-05-01 14:03 UTC". */
export const formatTimestamp = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
