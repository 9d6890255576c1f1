import { describe, expect, it } from 'vitest';
import { VulnscopeError } from './errors.js';
import {
  formatPurl,
  parsePurl,
  purlCollectionUrl,
  purlEcosystem,
  purlPackageName,
  purlTypeForCollectionUrl,
  type PackageUrl,
} from './purl.js';

function expectInvalid(action: () => unknown, fragment: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(VulnscopeError);
  expect((thrown as VulnscopeError).code).toBe('invalid_input');
  expect((thrown as VulnscopeError).message).toContain(fragment);
}

/**
 * Conformance rows from the purl-spec test suite (test-suite-data.json and tests/types/*.json):
 * input, the parsed components, and the canonical form.
 */
const CONFORMANCE: Array<[string, string, PackageUrl, string]> = [
  [
    'valid maven purl',
    'pkg:maven/org.apache.commons/io@1.3.4',
    { type: 'maven', namespace: 'org.apache.commons', name: 'io', version: '1.3.4' },
    'pkg:maven/org.apache.commons/io@1.3.4',
  ],
  [
    'maven purl without version',
    'pkg:maven/org.apache.commons/io',
    { type: 'maven', namespace: 'org.apache.commons', name: 'io' },
    'pkg:maven/org.apache.commons/io',
  ],
  [
    'go purl without version and with subpath',
    'pkg:GOLANG/google.golang.org/genproto#/googleapis/api/annotations/',
    { type: 'golang', namespace: 'google.golang.org', name: 'genproto', subpath: 'googleapis/api/annotations' },
    'pkg:golang/google.golang.org/genproto#googleapis/api/annotations',
  ],
  [
    'go purl with version and subpath',
    'pkg:GOLANG/google.golang.org/genproto@abcdedf#/googleapis/api/annotations/',
    {
      type: 'golang',
      namespace: 'google.golang.org',
      name: 'genproto',
      version: 'abcdedf',
      subpath: 'googleapis/api/annotations',
    },
    'pkg:golang/google.golang.org/genproto@abcdedf#googleapis/api/annotations',
  ],
  [
    'go purl with a namespace path',
    'pkg:golang/github.com/gorilla/context@234fd47e07d1004f0aed9c#api',
    {
      type: 'golang',
      namespace: 'github.com/gorilla',
      name: 'context',
      version: '234fd47e07d1004f0aed9c',
      subpath: 'api',
    },
    'pkg:golang/github.com/gorilla/context@234fd47e07d1004f0aed9c#api',
  ],
  [
    'bitbucket namespace and name are lowercased',
    'pkg:bitbucket/birKenfeld/pyGments-main@244fd47e07d1014f0aed9c',
    { type: 'bitbucket', namespace: 'birkenfeld', name: 'pygments-main', version: '244fd47e07d1014f0aed9c' },
    'pkg:bitbucket/birkenfeld/pygments-main@244fd47e07d1014f0aed9c',
  ],
  [
    'github namespace and name are lowercased',
    'pkg:github/Package-url/purl-Spec@244fd47e07d1004f0aed9c',
    { type: 'github', namespace: 'package-url', name: 'purl-spec', version: '244fd47e07d1004f0aed9c' },
    'pkg:github/package-url/purl-spec@244fd47e07d1004f0aed9c',
  ],
  [
    'debian qualifiers',
    'pkg:deb/debian/curl@7.50.3-1?arch=i386&distro=jessie',
    {
      type: 'deb',
      namespace: 'debian',
      name: 'curl',
      version: '7.50.3-1',
      qualifiers: { arch: 'i386', distro: 'jessie' },
    },
    'pkg:deb/debian/curl@7.50.3-1?arch=i386&distro=jessie',
  ],
  [
    'docker hash as version',
    'pkg:docker/customer/dockerimage@sha256:244fd47e07d1004f0aed9c?repository_url=gcr.io',
    {
      type: 'docker',
      namespace: 'customer',
      name: 'dockerimage',
      version: 'sha256:244fd47e07d1004f0aed9c',
      qualifiers: { repository_url: 'gcr.io' },
    },
    'pkg:docker/customer/dockerimage@sha256:244fd47e07d1004f0aed9c?repository_url=gcr.io',
  ],
  [
    'qualifier keys are lowercased',
    'pkg:gem/jruby-launcher@1.1.2?Platform=java',
    { type: 'gem', name: 'jruby-launcher', version: '1.1.2', qualifiers: { platform: 'java' } },
    'pkg:gem/jruby-launcher@1.1.2?platform=java',
  ],
  [
    'maven qualifiers, sorted',
    'pkg:Maven/org.apache.xmlgraphics/batik-anim@1.9.1?repositorY_url=repo.spring.io/release&classifier=sources',
    {
      type: 'maven',
      namespace: 'org.apache.xmlgraphics',
      name: 'batik-anim',
      version: '1.9.1',
      qualifiers: { classifier: 'sources', repository_url: 'repo.spring.io/release' },
    },
    'pkg:maven/org.apache.xmlgraphics/batik-anim@1.9.1?classifier=sources&repository_url=repo.spring.io/release',
  ],
  [
    'maven type qualifier',
    'pkg:Maven/net.sf.jacob-project/jacob@1.14.3?classifier=x86&type=dll',
    {
      type: 'maven',
      namespace: 'net.sf.jacob-project',
      name: 'jacob',
      version: '1.14.3',
      qualifiers: { classifier: 'x86', type: 'dll' },
    },
    'pkg:maven/net.sf.jacob-project/jacob@1.14.3?classifier=x86&type=dll',
  ],
  [
    'npm scope, encoded',
    'pkg:npm/%40angular/animation@12.3.1',
    { type: 'npm', namespace: '@angular', name: 'animation', version: '12.3.1' },
    'pkg:npm/%40angular/animation@12.3.1',
  ],
  [
    'npm scope, unencoded',
    'pkg:npm/@babel/core#/googleapis/api/annotations/',
    { type: 'npm', namespace: '@babel', name: 'core', subpath: 'googleapis/api/annotations' },
    'pkg:npm/%40babel/core#googleapis/api/annotations',
  ],
  [
    'npm names are lowercased',
    'pkg:npm/LoDash@4.17.21',
    { type: 'npm', name: 'lodash', version: '4.17.21' },
    'pkg:npm/lodash@4.17.21',
  ],
  [
    'npm scope and name are lowercased',
    'pkg:npm/%40MyScope/MyPackage@1.0.0',
    { type: 'npm', namespace: '@myscope', name: 'mypackage', version: '1.0.0' },
    'pkg:npm/%40myscope/mypackage@1.0.0',
  ],
  [
    'npm version with pre-release and build metadata',
    'pkg:npm/foobar@1.2.3-alpha.1+build.456',
    { type: 'npm', name: 'foobar', version: '1.2.3-alpha.1+build.456' },
    'pkg:npm/foobar@1.2.3-alpha.1+build.456',
  ],
  [
    'an @ inside a qualifier value stays encoded',
    'pkg:npm/mypackage@12.4.5?vcs_url=git://host.com/path/to/repo.git%404345abcd34343',
    {
      type: 'npm',
      name: 'mypackage',
      version: '12.4.5',
      qualifiers: { vcs_url: 'git://host.com/path/to/repo.git@4345abcd34343' },
    },
    'pkg:npm/mypackage@12.4.5?vcs_url=git://host.com/path/to/repo.git%404345abcd34343',
  ],
  [
    'unicode in a subpath',
    'pkg:npm/foo@1.0.0#src/%F0%9F%98%83/file.js',
    { type: 'npm', name: 'foo', version: '1.0.0', subpath: 'src/😃/file.js' },
    'pkg:npm/foo@1.0.0#src/%F0%9F%98%83/file.js',
  ],
  [
    'nuget names are case sensitive',
    'pkg:Nuget/EnterpriseLibrary.Common@6.0.1304',
    { type: 'nuget', name: 'EnterpriseLibrary.Common', version: '6.0.1304' },
    'pkg:nuget/EnterpriseLibrary.Common@6.0.1304',
  ],
  [
    'pypi names: lowercase, _ becomes -',
    'pkg:PYPI/Django_package@1.11.1.dev1',
    { type: 'pypi', name: 'django-package', version: '1.11.1.dev1' },
    'pkg:pypi/django-package@1.11.1.dev1',
  ],
  [
    'rpm qualifiers',
    'pkg:Rpm/fedora/curl@7.50.3-1.fc25?Arch=i386&Distro=fedora-25',
    {
      type: 'rpm',
      namespace: 'fedora',
      name: 'curl',
      version: '7.50.3-1.fc25',
      qualifiers: { arch: 'i386', distro: 'fedora-25' },
    },
    'pkg:rpm/fedora/curl@7.50.3-1.fc25?arch=i386&distro=fedora-25',
  ],
  [
    'a slash after the scheme is not significant',
    'pkg:/maven/org.apache.commons/io',
    { type: 'maven', namespace: 'org.apache.commons', name: 'io' },
    'pkg:maven/org.apache.commons/io',
  ],
  [
    'pkg:// is accepted',
    'pkg://maven/org.apache.commons/io',
    { type: 'maven', namespace: 'org.apache.commons', name: 'io' },
    'pkg:maven/org.apache.commons/io',
  ],
  [
    'pkg:/// is accepted',
    'pkg:///maven/org.apache.commons/io',
    { type: 'maven', namespace: 'org.apache.commons', name: 'io' },
    'pkg:maven/org.apache.commons/io',
  ],
  [
    'maven is case sensitive',
    'pkg:maven/HTTPClient/HTTPClient@0.3-3',
    { type: 'maven', namespace: 'HTTPClient', name: 'HTTPClient', version: '0.3-3' },
    'pkg:maven/HTTPClient/HTTPClient@0.3-3',
  ],
  [
    'spaces are percent-encoded',
    'pkg:maven/mygroup/myartifact@1.0.0%20Final?mykey=my%20value',
    {
      type: 'maven',
      namespace: 'mygroup',
      name: 'myartifact',
      version: '1.0.0 Final',
      qualifiers: { mykey: 'my value' },
    },
    'pkg:maven/mygroup/myartifact@1.0.0%20Final?mykey=my%20value',
  ],
  [
    'conan with namespace and channel',
    'pkg:conan/bincrafters/cctz@2.3?channel=stable',
    { type: 'conan', namespace: 'bincrafters', name: 'cctz', version: '2.3', qualifiers: { channel: 'stable' } },
    'pkg:conan/bincrafters/cctz@2.3?channel=stable',
  ],
  [
    'conda qualifiers',
    'pkg:conda/absl-py@0.4.1?build=py36h06a4308_0&channel=main&subdir=linux-64&type=tar.bz2',
    {
      type: 'conda',
      name: 'absl-py',
      version: '0.4.1',
      qualifiers: { build: 'py36h06a4308_0', channel: 'main', subdir: 'linux-64', type: 'tar.bz2' },
    },
    'pkg:conda/absl-py@0.4.1?build=py36h06a4308_0&channel=main&subdir=linux-64&type=tar.bz2',
  ],
  ['cran', 'pkg:cran/A3@0.9.1', { type: 'cran', name: 'A3', version: '0.9.1' }, 'pkg:cran/A3@0.9.1'],
  [
    'swift',
    'pkg:swift/github.com/Alamofire/Alamofire@5.4.3',
    { type: 'swift', namespace: 'github.com/Alamofire', name: 'Alamofire', version: '5.4.3' },
    'pkg:swift/github.com/Alamofire/Alamofire@5.4.3',
  ],
  [
    'hackage',
    'pkg:hackage/AC-HalfInteger@1.2.1',
    { type: 'hackage', name: 'AC-HalfInteger', version: '1.2.1' },
    'pkg:hackage/AC-HalfInteger@1.2.1',
  ],
  ['cargo', 'pkg:cargo/rand@0.7.2', { type: 'cargo', name: 'rand', version: '0.7.2' }, 'pkg:cargo/rand@0.7.2'],
  [
    'an empty qualifier value is dropped',
    'pkg:npm/foo@1.0.0?arch=&os=linux',
    { type: 'npm', name: 'foo', version: '1.0.0', qualifiers: { os: 'linux' } },
    'pkg:npm/foo@1.0.0?os=linux',
  ],
  [
    '. and .. subpath segments are dropped',
    'pkg:golang/github.com/a/b#./x/../y',
    { type: 'golang', namespace: 'github.com/a', name: 'b', subpath: 'x/y' },
    'pkg:golang/github.com/a/b#x/y',
  ],
];

describe('parsePurl and formatPurl: purl-spec conformance rows', () => {
  it.each(CONFORMANCE)('%s: %s', (_description, input, components, canonical) => {
    expect(parsePurl(input)).toEqual(components);
    expect(formatPurl(parsePurl(input))).toBe(canonical);
    expect(formatPurl(components)).toBe(canonical);
    expect(parsePurl(canonical)).toEqual(components);
  });
});

describe('parsePurl: invalid input is rejected with a reason', () => {
  const rows: Array<[string, string, string]> = [
    ['a scheme is always required', 'EnterpriseLibrary.Common@6.0.1304', 'scheme'],
    ['the scheme must be pkg', 'http://maven/org.apache.commons/io', 'scheme'],
    ['a type is always required', 'pkg:EnterpriseLibrary.Common@6.0.1304', 'type'],
    ['a name is required', 'pkg:maven/@1.3.4', 'name is required'],
    ['a name is required (type only)', 'pkg:npm/', 'name is required'],
    ['name and version are always required', 'pkg:hackage', 'type and a name'],
    [
      'qualifier keys may not be encoded or hold spaces',
      'pkg:npm/myartifact@1.0.0?in%20production=true',
      'qualifier key',
    ],
    ['qualifier keys may not start with a digit', 'pkg:npm/foo@1.0.0?1arch=x', 'qualifier key'],
    ['a qualifier must be key=value', 'pkg:npm/foo@1.0.0?arch', 'key=value'],
    ['qualifiers may not repeat', 'pkg:npm/foo@1.0.0?arch=x&ARCH=y', 'twice'],
    ['an empty version is invalid', 'pkg:npm/foobar@', 'version is empty'],
    ['a type may not start with a digit', 'pkg:1maven/org/io', 'type'],
    ['a type may only hold [a-z0-9.+-]', 'pkg:ma_ven/org/io', 'type'],
    ['malformed percent-encoding', 'pkg:npm/foo%zz@1.0.0', 'percent-encoding'],
    ['maven needs a namespace', 'pkg:maven/io@1.3.4', 'needs a namespace'],
    ['golang needs a namespace', 'pkg:golang/context@234fd47e07d1004f0aed9c', 'needs a namespace'],
    ['cargo has no namespace', 'pkg:cargo/rust-lang/rand@0.7.2', 'has no namespace'],
    ['swift needs a namespace', 'pkg:swift/Alamofire@5.4.3', 'needs a namespace'],
    ['swift needs a version', 'pkg:swift/github.com/Alamofire/Alamofire', 'needs a version'],
    ['cran needs a version', 'pkg:cran/A3', 'needs a version'],
    ['conan: namespace without channel', 'pkg:conan/bincrafters/cctz@2.3', 'channel'],
    ['conan: channel without namespace', 'pkg:conan/cctz@2.3?channel=stable', 'channel'],
  ];
  it.each(rows)('%s: %s', (_rule, input, fragment) => {
    expectInvalid(() => parsePurl(input), fragment);
  });

  it('formatPurl rejects what parsePurl rejects', () => {
    expectInvalid(
      () => formatPurl({ type: 'npm', name: 'myartifact', qualifiers: { 'in production': 'true' } }),
      'qualifier key',
    );
    expectInvalid(() => formatPurl({ type: 'npm', name: '' }), 'name is required');
    expectInvalid(() => formatPurl({ type: 'cargo', namespace: 'x', name: 'rand' }), 'has no namespace');
  });
});

describe('purl mappings to CVE 5 and OSV', () => {
  const rows: Array<[string, string | undefined, string | undefined]> = [
    ['npm', 'https://registry.npmjs.org', 'npm'],
    ['pypi', 'https://pypi.org', 'PyPI'],
    ['maven', 'https://repo.maven.apache.org/maven2', 'Maven'],
    ['golang', 'https://pkg.go.dev', 'Go'],
    ['cargo', 'https://crates.io', 'crates.io'],
    ['gem', 'https://rubygems.org', 'RubyGems'],
    ['nuget', 'https://www.nuget.org', 'NuGet'],
    ['composer', 'https://packagist.org', 'Packagist'],
    ['hex', 'https://hex.pm', 'Hex'],
    ['pub', 'https://pub.dev', 'Pub'],
    ['generic', undefined, undefined],
    ['constructor', undefined, undefined],
    ['__proto__', undefined, undefined],
  ];
  it.each(rows)('%s → collectionURL %s, OSV ecosystem %s', (type, collectionUrl, ecosystem) => {
    expect(purlCollectionUrl(type)).toBe(collectionUrl);
    expect(purlEcosystem(type)).toBe(ecosystem);
  });

  it.each([
    ['https://registry.npmjs.org', 'npm'],
    ['https://repo.maven.apache.org/maven2/', 'maven'], // trailing slash, as in real records
    ['https://pypi.python.org', 'pypi'], // the old PyPI host, as in real records
    ['https://pypi.python.org/', 'pypi'],
    ['HTTPS://PKG.GO.DEV', 'golang'],
    ['https://packagist.org', 'composer'],
    ['https://wordpress.org/plugins', undefined],
    ['constructor', undefined],
    ['__proto__', undefined],
  ])('collectionURL %s → purl type %s', (url, type) => {
    expect(purlTypeForCollectionUrl(url)).toBe(type);
  });

  it.each([
    ['pkg:maven/org.apache.commons/commons-compress@1.21', 'org.apache.commons:commons-compress'],
    ['pkg:npm/%40angular/core@12.0.0', '@angular/core'],
    ['pkg:golang/github.com/gin-gonic/gin@v1.5.0', 'github.com/gin-gonic/gin'],
    ['pkg:composer/mautic/core-lib@4.0.0', 'mautic/core-lib'],
    ['pkg:pypi/apache_airflow_providers_celery@3.0.0', 'apache-airflow-providers-celery'],
    ['pkg:cargo/openssl@0.9.0', 'openssl'],
  ])('%s names the package %s', (purl, name) => {
    expect(purlPackageName(parsePurl(purl))).toBe(name);
  });
});
