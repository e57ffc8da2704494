/**
 * The local API token: what a caller of BreakerBar's mutating endpoints must
 * present. A web page cannot read a file in the data directory, so requiring
 * it defeats cross-site requests even from a browser that sends no Origin;
 * owner-only permissions keep other local users out as well.
 *
 * Never log the token or pass it to a logger field.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export const API_TOKEN_FILE = 'api-token';

/** 32 random bytes, hex: what BreakerBar writes, and what it accepts back from the file. */
const TOKEN_SHAPE = /^[0-9a-f]{64}$/;

/** POSIX permission bits mean nothing on Windows (ACLs do), so they are neither checked nor set there. */
const POSIX = process.platform !== 'win32';

/** O_NOFOLLOW where the platform has it: a symlink planted at the token's path is refused, not followed. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Returns the token in `<dataDir>/api-token`, creating it on first start (mode 0600). An existing file
 * readable by group or others is tightened to 0600 and its token kept (callers may already hold it).
 * An empty file (a crash between creating and writing it) is replaced; any other unexpected content is
 * an error, so a file someone edited by hand is never silently overwritten.
 */
export function loadOrCreateApiToken(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, API_TOKEN_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = readExisting(path);
    if (existing !== null) return existing;
    const created = create(dataDir, path);
    if (created !== null) return created;
    // Lost a race with another process creating it: read theirs.
  }
  throw new Error(`cannot create the API token ${path}`);
}

/** The token in the file, null when there is none (or only an empty leftover, which is removed). */
function readExisting(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new Error(`the API token ${path} is a symbolic link; refusing to use it`);
    throw new Error(`cannot read the API token ${path}: ${(error as Error).message}`);
  }
  let content: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`the API token ${path} is not a regular file`);
    if (POSIX && (stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    content = readFileSync(fd, 'utf8').trim();
  } finally {
    closeSync(fd);
  }
  if (content === '') {
    unlinkSync(path);
    return null;
  }
  // The message must not include the content: it may be a real token in an unexpected format.
  if (!TOKEN_SHAPE.test(content)) {
    throw new Error(`the API token ${path} does not hold a 64-digit hex token; delete it to generate a new one`);
  }
  return content;
}

/**
 * Writes a new token to a private temporary file and links it into place: readers never see a partial
 * file, and `link` fails instead of overwriting when another process got there first (null).
 */
function create(dataDir: string, path: string): string | null {
  const token = randomBytes(32).toString('hex');
  const temp = join(dataDir, `.${API_TOKEN_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // 0600 from the first byte; the umask can only narrow it, and fchmod makes it exact.
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  try {
    if (POSIX) fchmodSync(fd, 0o600);
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw error;
  } finally {
    unlinkSync(temp);
  }
}
