/** Where the first paint's snapshot is kept (beside the session, `radar-auth`); read by the build's loader too (scripts/first-paint.ts). */
export const FIRST_PAINT_KEY = 'radar-first-paint';
