// React ships CommonJS only, and the test runner serves ES modules: react, react-dom and react-dom/client reach the
// page as ES modules, bundled once by esbuild (development builds) so that every entry shares one copy of React.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';

export function reactAsEsm({ entries = ['react', 'react/jsx-runtime', 'react-dom', 'react-dom/client'] } = {}) {
  const prefix = '/__esm__/';
  let shared;
  // The named exports, read in a child process: React's development build touches the console of whoever loads it.
  const names = (entry) =>
    JSON.parse(
      execFileSync(process.execPath, ['-p', `JSON.stringify(Object.keys(require(${JSON.stringify(entry)})))`], {
        encoding: 'utf8',
      }),
    ).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
  return {
    name: 'react-as-esm',
    resolveImport({ source }) {
      if (entries.includes(source)) return `${prefix}${source}.js`;
    },
    async serve({ path }) {
      if (!path.startsWith(prefix)) return;
      if (path === `${prefix}shared.js`) {
        shared ??= build({
          stdin: {
            contents: entries.map((e, i) => `export * as m${i} from '${e}';`).join('\n'),
            resolveDir: process.cwd(),
          },
          bundle: true,
          format: 'esm',
          write: false,
          define: { 'process.env.NODE_ENV': '"development"' },
          logLevel: 'silent',
        }).then((r) => r.outputFiles[0].text);
        return { body: await shared, type: 'js' };
      }
      const i = entries.indexOf(path.slice(prefix.length, -'.js'.length));
      if (i < 0) return;
      return {
        body: `import { m${i} as m } from '${prefix}shared.js';\nexport default m.default ?? m;\nexport const { ${names(entries[i]).join(', ')} } = m;\n`,
        type: 'js',
      };
    },
  };
}
