// Which browser this is: "Edge", "Chrome" or "Chromium", and its full version.
export async function browserInfo() {
  const uad = navigator.userAgentData;
  if (uad) {
    let list = uad.brands || [];
    try {
      const hi = await uad.getHighEntropyValues(['fullVersionList']);
      if (hi.fullVersionList?.length) list = hi.fullVersionList;
    } catch { /* low-entropy brands are enough */ }
    const find = (re) => list.find((b) => re.test(b.brand));
    const b = find(/Microsoft Edge/) || find(/Google Chrome/) || find(/^Chromium$/);
    if (b) {
      const name = /Edge/.test(b.brand) ? 'Edge' : /Chrome/.test(b.brand) && !/Chromium/.test(b.brand) ? 'Chrome' : 'Chromium';
      return { browser: name, browserVersion: b.version };
    }
  }
  const ua = navigator.userAgent;
  let m;
  if ((m = ua.match(/Edg\/([\d.]+)/))) return { browser: 'Edge', browserVersion: m[1] };
  if ((m = ua.match(/Chrom(?:e|ium)\/([\d.]+)/))) return { browser: 'Chromium', browserVersion: m[1] };
  return { browser: 'Chromium', browserVersion: '' };
}
