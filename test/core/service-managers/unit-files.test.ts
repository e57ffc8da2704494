/**
 * Rule: the generated service files mean exactly what we asked for when launchd
 * and systemd read them back — every path and argument survives quoting, and
 * nothing in a path can become XML markup, a systemd specifier or a variable.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cliEntryPath,
  LAUNCHD_LABEL,
  launchAgentPlist,
  programArguments,
  servicePath,
  systemdExecLine,
  systemdUserUnit,
  UnitFileError,
  xmlEscape,
} from '../../../main/core/service-managers/unit-files.js';
import { aboutOurUnit, verifyUnit } from '../../helpers/systemd-verify.js';
import { toolOrSkip } from '../../helpers/tools.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function has(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).status === 0;
}

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-unit-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

// Every character that means something to XML, a shell, systemd's quoting, its specifiers or its variables.
const TRICKY = `a b&c<d>e"f'g%h%%i$j$$k\${HOME}l\\m;n\tend`;

// ---------------------------------------------------------------------------
// programArguments

describe('programArguments', () => {
  it('runs this Node binary on the built CLI, absolute, with `daemon` and the config file', () => {
    const argv = programArguments('/etc/bb/config.json');
    expect(argv[0]).toBe(process.execPath);
    expect(isAbsolute(argv[1] as string)).toBe(true);
    expect(argv[1]).toBe(join(ROOT, 'dist', 'main', 'cli', 'index.js'));
    expect(argv.slice(2)).toEqual(['daemon', '--config', '/etc/bb/config.json']);
    expect(programArguments()).toEqual([process.execPath, argv[1], 'daemon']);
  });

  it('resolves the CLI next to the built module, and from source to the build output', () => {
    expect(cliEntryPath(pathToFileURL('/opt/bb/dist/main/core/service-managers/unit-files.js').href)).toBe(
      '/opt/bb/dist/main/cli/index.js',
    );
    expect(cliEntryPath(pathToFileURL('/src/bb/main/core/service-managers/unit-files.ts').href)).toBe(
      '/src/bb/dist/main/cli/index.js',
    );
    // npm test builds first: the path the service would run exists and is the package's bin.
    expect(existsSync(cliEntryPath()), `${cliEntryPath()} missing: run npm run build`).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// A strict little XML reader for the plist: well-formed, only the predefined
// entities, and (stricter than XML) no raw > " ' in text, so missing escaping shows.

type PlistValue = string | number | boolean | PlistValue[] | { [key: string]: PlistValue };
interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: Array<XmlElement | string>;
}

function decodeText(raw: string): string {
  if (/[<>"']/.test(raw)) throw new Error(`unescaped markup character in text ${JSON.stringify(raw)}`);
  return raw.replace(/&([^;]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(';')) throw new Error(`unterminated entity in ${JSON.stringify(raw)}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[name] !== undefined) return named[name];
    if (/^#\d+$/.test(name)) return String.fromCodePoint(Number(name.slice(1)));
    if (/^#x[0-9a-f]+$/i.test(name)) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    throw new Error(`unknown entity &${name};`);
  });
}

function parseXml(text: string): XmlElement {
  let pos = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${pos}: ${JSON.stringify(text.slice(pos, pos + 40))}`);
  };
  const skipSpace = () => {
    while (/\s/.test(text[pos] ?? '')) pos++;
  };
  if (!text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')) fail('missing XML declaration');
  pos = text.indexOf('?>') + 2;
  skipSpace();
  const doctype =
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">';
  if (!text.startsWith(doctype, pos)) fail('missing plist DOCTYPE');
  pos += doctype.length;
  skipSpace();

  const element = (): XmlElement => {
    const open = /^<([A-Za-z][\w.-]*)((?:\s+[A-Za-z][\w.-]*="[^"<&]*")*)\s*(\/?)>/.exec(text.slice(pos));
    if (!open) return fail('expected a start tag');
    pos += open[0].length;
    const attrs: Record<string, string> = {};
    for (const m of (open[2] ?? '').matchAll(/([A-Za-z][\w.-]*)="([^"]*)"/g)) attrs[m[1] as string] = m[2] as string;
    const node: XmlElement = { name: open[1] as string, attrs, children: [] };
    if (open[3] === '/') return node;
    for (;;) {
      const lt = text.indexOf('<', pos);
      if (lt < 0) fail(`unclosed <${node.name}>`);
      const raw = text.slice(pos, lt);
      if (raw.trim() !== '') node.children.push(decodeText(raw));
      else if (raw !== '' && node.name === 'string') node.children.push(raw);
      pos = lt;
      if (text.startsWith('</', pos)) {
        const close = /^<\/([A-Za-z][\w.-]*)\s*>/.exec(text.slice(pos));
        if (!close || close[1] !== node.name) fail(`expected </${node.name}>`);
        pos += (close as RegExpExecArray)[0].length;
        return node;
      }
      node.children.push(element());
    }
  };
  const root = element();
  skipSpace();
  if (pos !== text.length) fail('content after the root element');
  return root;
}

function plistValue(node: XmlElement): PlistValue {
  const elements = node.children.filter((c): c is XmlElement => typeof c !== 'string');
  const text = node.children.filter((c): c is string => typeof c === 'string').join('');
  switch (node.name) {
    case 'string':
      if (elements.length > 0) throw new Error('<string> with child elements');
      return text;
    case 'integer':
      if (!/^-?\d+$/.test(text)) throw new Error(`bad <integer> ${text}`);
      return Number(text);
    case 'true':
    case 'false':
      if (node.children.length > 0) throw new Error(`<${node.name}/> must be empty`);
      return node.name === 'true';
    case 'array':
      if (text.trim() !== '') throw new Error('text inside <array>');
      return elements.map(plistValue);
    case 'dict': {
      if (text.trim() !== '') throw new Error('text inside <dict>');
      if (elements.length % 2 !== 0) throw new Error('<dict> with a key and no value');
      const out: Record<string, PlistValue> = {};
      for (let i = 0; i < elements.length; i += 2) {
        const k = elements[i] as XmlElement;
        if (k.name !== 'key') throw new Error(`expected <key>, got <${k.name}>`);
        const keyText = plistValue({ ...k, name: 'string' }) as string;
        if (keyText in out) throw new Error(`duplicate key ${keyText}`);
        out[keyText] = plistValue(elements[i + 1] as XmlElement);
      }
      return out;
    }
    default:
      throw new Error(`not a plist element: <${node.name}>`);
  }
}

function readPlist(text: string): PlistValue {
  const root = parseXml(text);
  if (root.name !== 'plist' || root.attrs.version !== '1.0') throw new Error('root is not <plist version="1.0">');
  const [only, ...rest] = root.children;
  if (!only || typeof only === 'string' || rest.length > 0) throw new Error('<plist> must hold one value');
  return plistValue(only);
}

describe('the strict plist reader used below', () => {
  it('rejects what launchd would reject or misread', () => {
    const wrap = (body: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">${body}</plist>\n`;
    expect(readPlist(wrap('<dict><key>A</key><string>x &amp; y</string></dict>'))).toEqual({ A: 'x & y' });
    expect(() => readPlist(wrap('<dict><key>A</key><string>x & y</string></dict>'))).toThrow(/entity/);
    expect(() => readPlist(wrap('<dict><key>A</key><string>a<b</string></dict>'))).toThrow();
    expect(() => readPlist(wrap('<dict><key>A</key><string>a"b</string></dict>'))).toThrow(/unescaped/);
    expect(() => readPlist(wrap('<dict><key>A</key><string>x</dict>'))).toThrow(/expected <\/string>/);
    expect(() => readPlist(wrap('<dict><key>A</key></dict>'))).toThrow(/no value/);
  });
});

// ---------------------------------------------------------------------------
// launchd

describe('launchAgentPlist', () => {
  const node = `/Users/o'neil & co/.nvm/<v20>/bin/node`;
  const options = {
    programArguments: [node, `/Users/o'neil & co/lib/"bb"/dist/main/cli/index.js`, 'daemon', '--config', TRICKY],
    logDir: `/Users/o'neil & co/Library/Logs/BreakerBar`,
    env: { BREAKERBAR_HOME: `/tmp/<home> & "stuff"`, OPENCLAW_STATE_DIR: "/srv/it's" },
  };
  const expected = {
    Label: LAUNCHD_LABEL,
    ProgramArguments: options.programArguments,
    RunAtLoad: true,
    KeepAlive: { SuccessfulExit: false },
    ThrottleInterval: 10,
    StandardOutPath: `/Users/o'neil & co/Library/Logs/BreakerBar/daemon.log`,
    StandardErrorPath: `/Users/o'neil & co/Library/Logs/BreakerBar/daemon.err.log`,
    EnvironmentVariables: {
      PATH: `/Users/o'neil & co/.nvm/<v20>/bin:/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`,
      BREAKERBAR_HOME: `/tmp/<home> & "stuff"`,
      OPENCLAW_STATE_DIR: "/srv/it's",
    },
    ProcessType: 'Background',
  };

  it('is a well-formed plist holding exactly the job, with &<>"\' in paths escaped', () => {
    const text = launchAgentPlist(options);
    expect(readPlist(text)).toEqual(expected);
    // Nothing unescaped slipped through as raw text.
    expect(text).not.toContain("o'neil");
    expect(text).toContain('o&apos;neil &amp; co');
  });

  const python = toolOrSkip('python3');
  it.skipIf(python.skip)(python.title('reads back identically with Python plistlib (expat, a real XML parser)'), () => {
    const file = join(tmp, 'job.plist');
    writeFileSync(file, launchAgentPlist(options));
    const read = spawnSync(
      'python3',
      ['-c', 'import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))', file],
      { encoding: 'utf8' },
    );
    expect(read.status, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual(expected);
  });

  // macOS's own checker: absent elsewhere by nature, so this skips rather than following the tool policy.
  it.skipIf(!has('plutil'))('passes plutil -lint (macOS)', () => {
    const file = join(tmp, 'job.plist');
    writeFileSync(file, launchAgentPlist(options));
    const lint = spawnSync('plutil', ['-lint', file], { encoding: 'utf8' });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
    const bad = join(tmp, 'bad.plist');
    writeFileSync(bad, launchAgentPlist(options).replace('&amp;', '&'));
    expect(spawnSync('plutil', ['-lint', bad]).status).not.toBe(0);
  });

  it('takes a custom label, lets the given env override PATH, and trims a trailing slash off the log dir', () => {
    const plist = readPlist(
      launchAgentPlist({
        label: 'dev.bb.test',
        programArguments: ['/usr/bin/node', '/x/index.js', 'daemon'],
        logDir: '/logs/',
        env: { PATH: '/only/here' },
      }),
    ) as Record<string, PlistValue>;
    expect(plist.Label).toBe('dev.bb.test');
    expect(plist.EnvironmentVariables).toEqual({ PATH: '/only/here' });
    expect(plist.StandardOutPath).toBe('/logs/daemon.log');
  });

  it('refuses what a plist cannot hold or launchd cannot run', () => {
    const base = { programArguments: ['/usr/bin/node', 'x'], logDir: '/l' };
    expect(() => launchAgentPlist({ ...base, programArguments: ['node', 'x'] })).toThrow(UnitFileError);
    expect(() => launchAgentPlist({ ...base, programArguments: [] })).toThrow(UnitFileError);
    expect(() => launchAgentPlist({ ...base, env: { 'BAD NAME': 'x' } })).toThrow(/not a valid environment/);
    expect(() => launchAgentPlist({ ...base, programArguments: ['/usr/bin/node', 'a\u0001b'] })).toThrow(UnitFileError);
    expect(() => xmlEscape('lone \ud800 surrogate')).toThrow(UnitFileError);
    expect(xmlEscape('tab\tnew\nline 😀')).toBe('tab\tnew\nline 😀');
  });
});

describe('servicePath', () => {
  it("puts the Node binary's directory first and finds Homebrew's openclaw on macOS", () => {
    expect(servicePath('/opt/homebrew/bin/node', 'darwin')).toBe(
      '/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
    );
    expect(servicePath('/home/u/.nvm/versions/node/v20/bin/node', 'linux')).toBe(
      '/home/u/.nvm/versions/node/v20/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
    );
  });
});

// ---------------------------------------------------------------------------
// systemd: an independent reader following systemd.service(5)/systemd.syntax(7):
// words split on whitespace, "double" or 'single' quotes, C escapes; then
// specifiers (%% is a literal %, any other % an error here); then in ExecStart
// arguments (not the executable) $$ is a literal $ and any other $ a variable.

function cUnescape(s: string, i: number): [string, number] {
  const c = s[i];
  const simple: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    a: '\x07',
    b: '\b',
    f: '\f',
    v: '\v',
    s: ' ',
    '\\': '\\',
    '"': '"',
    "'": "'",
  };
  if (c !== undefined && simple[c] !== undefined) return [simple[c] as string, i + 1];
  if (c === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
    return [String.fromCharCode(Number.parseInt(s.slice(i + 1, i + 3), 16)), i + 3];
  }
  throw new Error(`unknown escape \\${c} in ${JSON.stringify(s)}`);
}

function systemdWords(value: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (value[i] === ' ' || value[i] === '\t') i++;
    if (i >= value.length) break;
    let word = '';
    let quote: string | null = null;
    for (; i < value.length; ) {
      const c = value[i] as string;
      if (quote === null && (c === ' ' || c === '\t')) break;
      if (quote === null && (c === '"' || c === "'")) {
        quote = c;
        i++;
      } else if (quote !== null && c === quote) {
        quote = null;
        i++;
      } else if (c === '\\') {
        const [text, next] = cUnescape(value, i + 1);
        word += text;
        i = next;
      } else {
        word += c;
        i++;
      }
    }
    if (quote !== null) throw new Error(`unbalanced quoting in ${JSON.stringify(value)}`);
    words.push(word);
  }
  return words;
}

function specifiers(word: string): string {
  return word.replace(/%(.?)/g, (_, c: string) => {
    if (c === '%') return '%';
    throw new Error(`unescaped specifier %${c} in ${JSON.stringify(word)}`);
  });
}

function variables(word: string): string {
  return word.replace(/\$(.?)/g, (_, c: string) => {
    if (c === '$') return '$';
    throw new Error(`unescaped variable reference in ${JSON.stringify(word)}`);
  });
}

/**
 * The argv systemd runs for an ExecStart= value. systemd refuses an executable
 * containing quotes, backslashes or control characters (seen with systemd 252:
 * "Executable name contains special characters"); a leading /usr/bin/env, which
 * the generator uses for such paths, is looked through.
 */
function readExecStart(value: string): string[] {
  const argv = systemdWords(value).map((w, i) => (i === 0 ? specifiers(w) : variables(specifiers(w))));
  const exe = argv[0] ?? '';
  const refused = [...exe].some((c) => `"'\\`.includes(c) || (c.codePointAt(0) as number) < 0x20 || c === '\x7f');
  if (refused) throw new Error(`systemd refuses the executable ${JSON.stringify(exe)}`);
  return exe === '/usr/bin/env' ? argv.slice(1) : argv;
}

interface Unit {
  [section: string]: Record<string, string[]>;
}

function readUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '' || /^[#;]/.test(line)) continue;
    if (line.endsWith('\\')) throw new Error(`line continues onto the next: ${line}`);
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      section = {};
      unit[header[1] as string] = section;
      continue;
    }
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!kv || !section) throw new Error(`not a key=value line in a section: ${line}`);
    const key = kv[1] as string;
    section[key] = [...(section[key] ?? []), kv[2] as string];
  }
  return unit;
}

function readEnvironment(values: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of values) {
    for (const word of systemdWords(value).map(specifiers)) {
      const eq = word.indexOf('=');
      if (eq < 1) throw new Error(`not NAME=value: ${word}`);
      env[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  return env;
}

describe('the systemd reader used below', () => {
  it('rejects what systemd would misread', () => {
    expect(readExecStart('"/a b" "c"')).toEqual(['/a b', 'c']);
    expect(() => readExecStart('"/bin/x" "100%"')).toThrow(/specifier/);
    expect(() => readExecStart('"/bin/x" "$HOME"')).toThrow(/variable/);
    expect(() => readExecStart('"/bin/x" "open')).toThrow(/unbalanced/);
    expect(() => readExecStart('"/bin/x\\"y"')).toThrow(/refuses/);
    expect(readExecStart('"/usr/bin/env" "/bin/x\\"y" "$$"')).toEqual(['/bin/x"y', '$']);
    expect(() => readUnit('[Service]\nExecStart=/x \\\n')).toThrow(/continues/);
  });
});

describe('systemdUserUnit', () => {
  const execStart = [
    '/home/Ann Smith/.nvm/v20 "current"/bin/node',
    `/home/Ann Smith/100%/$dir/it's\\here/dist/main/cli/index.js`,
    'daemon',
    '--config',
    TRICKY,
  ];
  const env = { BREAKERBAR_HOME: TRICKY, OPENCLAW_STATE_DIR: '/srv/openclaw state' };

  it('has the sections and settings of a restart-on-failure user service', () => {
    const unit = readUnit(systemdUserUnit({ execStart, env, description: 'BreakerBar 100% test' }));
    expect(Object.keys(unit)).toEqual(['Unit', 'Service', 'Install']);
    expect(unit.Unit).toEqual({ Description: ['BreakerBar 100%% test'], After: ['network.target'] });
    const service = unit.Service as Record<string, string[]>;
    expect(service.Type).toEqual(['simple']);
    expect(service.Restart).toEqual(['on-failure']);
    expect(service.RestartSec).toEqual(['10']);
    expect(service.KillSignal).toEqual(['SIGTERM']);
    expect(service.TimeoutStopSec).toEqual(['30']);
    expect(service.ExecStart).toHaveLength(1);
    expect(unit.Install).toEqual({ WantedBy: ['default.target'] });
  });

  it('ExecStart and Environment= read back to exactly the arguments and values given', () => {
    const unit = readUnit(systemdUserUnit({ execStart, env }));
    const service = unit.Service as Record<string, string[]>;
    expect(readExecStart((service.ExecStart as string[])[0] as string)).toEqual(execStart);
    expect(readEnvironment(service.Environment ?? [])).toEqual({
      PATH: '/home/Ann Smith/.nvm/v20 "current"/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
      ...env,
    });
  });

  it('round-trips any argument and any environment value (property)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0'));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 5 }), text, text, (args, value, exe) => {
        const argv = [`/opt/${exe}/node`, ...args];
        const unit = readUnit(systemdUserUnit({ execStart: argv, env: { SOME_VAR: value } }));
        const service = unit.Service as Record<string, string[]>;
        expect(readExecStart((service.ExecStart as string[])[0] as string)).toEqual(argv);
        expect(readEnvironment(service.Environment ?? []).SOME_VAR).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the description on its line and its % literal', () => {
    const unit = readUnit(systemdUserUnit({ execStart: ['/bin/true'], env: {}, description: 'a\nb%c\\' }));
    expect(specifiers((unit.Unit as Record<string, string[]>).Description?.[0] as string)).toBe('a b%c');
  });

  it('refuses a relative executable, a bad variable name and NUL', () => {
    expect(() => systemdExecLine(['node', 'x'])).toThrow(UnitFileError);
    expect(() => systemdUserUnit({ execStart: ['/bin/true'], env: { '1X': 'y' } })).toThrow(UnitFileError);
    expect(() => systemdUserUnit({ execStart: ['/bin/true', 'a\0b'], env: {} })).toThrow(UnitFileError);
  });
});

// ---------------------------------------------------------------------------
// systemd-analyze verify (test/helpers/systemd-verify.ts).

const ANALYZE = toolOrSkip('systemd-analyze');
const verify = (unitText: string) => verifyUnit(unitText, tmp);

describe.skipIf(ANALYZE.skip)(ANALYZE.title('systemd-analyze verify'), () => {
  /** A real executable at `dir`/node. */
  function executable(dir: string): string {
    mkdirSync(join(tmp, dir), { recursive: true });
    const file = join(tmp, dir, 'node');
    writeFileSync(file, '#!/bin/sh\nexit 0\n');
    chmodSync(file, 0o755);
    return file;
  }
  // Characters systemd takes in an executable path once quoted and escaped ...
  const quotable = () => executable('bin dir %h $HOME ;#&*');
  // ... and ones it refuses there (run through /usr/bin/env instead).
  const refused = () => executable(`odd "q" it's \\ back`);

  it('accepts the generated unit without a word about it', () => {
    for (const node of [quotable(), refused()]) {
      const unit = systemdUserUnit({
        execStart: [node, join(dirname(node), 'index.js'), 'daemon', '--config', `${TRICKY} %z`],
        env: { BREAKERBAR_HOME: TRICKY, OPENCLAW_STATE_DIR: '/srv/100%z' },
        description: 'BreakerBar 100% %z',
      });
      const { code, output, mode } = verify(unit);
      expect(aboutOurUnit(output), `${mode} mode:\n${output}`).toEqual([]);
      expect(code, `${mode} mode:\n${output}`).toBe(0);
    }
  });

  it('would notice mis-quoting (control: the check can fail)', () => {
    const good = systemdUserUnit({ execStart: [quotable(), 'daemon'], env: {} });
    const exec = /^ExecStart=.*$/m.exec(good)?.[0] as string;
    // Undo the %-doubling: systemd then expands %h and looks for a different file.
    const broken = good.replace(exec, exec.replace(/%%/g, '%'));
    expect(broken).not.toBe(good);
    const { code, output } = verify(broken);
    expect(code).not.toBe(0);
    expect(aboutOurUnit(output).join('\n')).toMatch(/not executable/);
    // An unknown specifier in an argument is an error.
    const badArg = verify(good.replace(/ "daemon"$/m, ' "100%z"'));
    expect(badArg.code).not.toBe(0);
    expect(aboutOurUnit(badArg.output).join('\n')).toMatch(/specifier/);
    // So is an executable path with a quote in it, however it is escaped.
    const quoted = refused();
    const direct = good.replace(exec, `ExecStart="${quoted.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}" "daemon"`);
    const refusal = verify(direct);
    expect(refusal.code).not.toBe(0);
    expect(aboutOurUnit(refusal.output).join('\n')).toMatch(/special characters/);
  });
});
