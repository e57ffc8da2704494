/**
 * What a browser session's token looks like (minted and checked by main/api/server/sessions.ts):
 * `bbs.<issued, base36 ms>.<nonce>.<mac>`. Shared so the dashboard keeps exactly what the server issues.
 */
export const SESSION_TOKEN_SHAPE = /^bbs\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{24})\.([A-Za-z0-9_-]{43})$/;
