/** Where the first paint's snapshot is kept (beside the session, `radar-auth`); read by the build's loader too (scripts/first-paint.ts). */
export const FIRST_PAINT_KEY = 'radar-first-paint';

/**
 * The one page the first paint draws: the feed itself, `/app` with no query (no other view, no
 * reader open over it). The build's loader asks for the first paint's script only there.
 */
export const FIRST_PAINT_PATH = /^\/app\/?$/;
