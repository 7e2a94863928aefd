// Where the page tests find Chromium: Debian's package, unless ACQUIRO_CHROMIUM names another.
export const CHROMIUM = process.env.ACQUIRO_CHROMIUM ?? '/usr/bin/chromium';
