import { serve, launch, openLab, frames } from './lib.mjs';
const server = await serve('/work/wt-i18n/build-web/site');
const browser = await launch();
const { page } = await openLab(browser, server.url + process.argv[2], { width: +process.argv[3], height: +process.argv[4] });
if (process.argv[5]) await page.evaluate((s) => window.attnlab.uiScale(s), +process.argv[5]);
await frames(page, 4); await page.waitForTimeout(500);
let l = await page.evaluate(() => window.attnlab.layout());
if (process.argv[6]) { const r = l.widgets[process.argv[6]]; await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2); await frames(page, 4); await page.waitForTimeout(300); l = await page.evaluate(() => window.attnlab.layout()); }
console.log(JSON.stringify(l.windows));
await page.screenshot({ path: process.argv[7] || '/tmp/dbg.png' });
await browser.close(); await server.close();
