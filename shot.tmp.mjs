import { chromium } from 'playwright-core';
const [, , url, out, width = '1000'] = process.argv;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: Number(width), height: 800 } });
await page.goto(url);
await page.screenshot({ path: out, fullPage: true });
await browser.close();
