import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../services/shared/src/infra/paths';
import { instruments } from '../../services/shared/src/telemetry/instruments';
import { servicesDirectory, sourceFiles } from './source-files';

/**
 * Every metric instrument is created from services/shared/src/telemetry/instruments.ts, so that the alert rules and
 * dashboards can be checked against that one list (test/observability): no service creates one from a name of its
 * own, and every entry of the list is created somewhere (none names a metric no service exports).
 */
describe('the instrument registry', () => {
  const files = fs
    .readdirSync(servicesDirectory)
    .flatMap((service) => sourceFiles(path.join(servicesDirectory, service, 'src'), /\.ts$/))
    .filter((file) => !file.endsWith(path.join('telemetry', 'instruments.ts')));
  const texts = files.map((file) => ({ file: path.relative(repositoryRoot, file), text: fs.readFileSync(file, 'utf8') }));

  it('is the only place an instrument gets its name', () => {
    const literal = /\.create(Counter|UpDownCounter|Histogram|Gauge|ObservableGauge|ObservableCounter|ObservableUpDownCounter)\(\s*['"`]/;
    expect(texts.filter(({ text }) => literal.test(text)).map(({ file }) => file)).toEqual([]);
  });

  it('has no entry that no service creates', () => {
    const unused = Object.keys(instruments).filter((key) => !texts.some(({ text }) => text.includes(`instruments.${key})`)));
    expect(unused).toEqual([]);
  });
});
