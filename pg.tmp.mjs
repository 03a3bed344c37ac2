import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const shot = (name) => page.screenshot({ path: `/work/manual/pg-${name}.png` });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
await page.goto('http://127.0.0.1:3150/');
await page.waitForSelector('#connection[data-state="open"]', { timeout: 10000 }).catch(() => {});
const options = await page.locator('#you-are option').allInnerTexts();
console.log('identities:', options);
async function send(text) { await page.fill('#composer-input', text); await page.press('#composer-input', 'Enter'); }
async function reply(text) { await page.fill('#thread-input', text); await page.press('#thread-input', 'Enter'); }
const threadText = () => page.locator('#thread-messages').innerText();

await send('@opsbot check the box slowly');
await sleep(1500);
await shot('1-working');
console.log('--- working thread:\n' + (await threadText()));
await page.locator('#thread-messages button', { hasText: 'Cancel run' }).first().click();
await sleep(2500);
await shot('2-cancelled');
console.log('--- after Cancel run:\n' + (await threadText()));

await send('@opsbot restart nginx, which host?');
await sleep(1500);
console.log('--- question:\n' + (await threadText()));
const values = await page.locator('#you-are option').evaluateAll((os) => os.map((o) => o.value));
await page.selectOption('#you-are', values[1]);
await sleep(300);
await reply('@opsbot what about disk?');
await sleep(1500);
await page.selectOption('#you-are', values[0]);
await sleep(300);
await reply('stop');
await sleep(1000);
await shot('3-queued-and-stop');
console.log('--- queued behind, stop:\n' + (await threadText()));
await page.locator('#thread-messages button', { hasText: 'web-1' }).first().click({ timeout: 5000 }).catch((e) => console.log('NO web-1 button'));
await sleep(4000);
await shot('4-answered');
console.log('--- answered:\n' + (await threadText()));
await page.locator('#thread-close').click();
await send('/ops cancel');
await sleep(1000);
await shot('5-ops-cancel');
console.log('--- channel after /ops cancel:\n' + (await page.locator('#messages').innerText()).split('\n').slice(-6).join('\n'));
await browser.close();
