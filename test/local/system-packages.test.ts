import { describe, expect, it } from 'vitest';
import { missingPackages, SYSTEM_PACKAGES } from '../support/system-packages';

describe('the Debian packages npm test makes sure of', () => {
  it('names the package of a command that is not on the PATH, once', () => {
    const absent = { command: 'cartwheel-no-such-command', debian: 'cartwheel-absent' };
    expect(missingPackages([absent, { ...absent, command: 'cartwheel-no-such-command-2' }])).toEqual(['cartwheel-absent']);
  });

  it('takes a present command, or an override variable, as installed', () => {
    expect(missingPackages([{ command: 'sh', debian: 'dash' }])).toEqual([]);
    process.env.CARTWHEEL_TEST_OVERRIDE = '/somewhere/browser';
    try {
      expect(missingPackages([{ command: 'cartwheel-no-such-command', debian: 'x', override: 'CARTWHEEL_TEST_OVERRIDE' }])).toEqual([]);
    } finally {
      delete process.env.CARTWHEEL_TEST_OVERRIDE;
    }
  });

  it('covers the browser, the sandbox and the PDF tools, and all are here after the global set-up', () => {
    expect(SYSTEM_PACKAGES.map((entry) => entry.debian)).toEqual(expect.arrayContaining(['chromium', 'bubblewrap', 'poppler-utils']));
    expect(missingPackages()).toEqual([]);
  });
});
