// WebKit (WebKitGTK's MiniBrowser) for web-test-runner: WebKitWebDriver, started on a spare port (with an Xvfb when
// there is no display) when the run starts and stopped when it ends, and @web/test-runner-webdriver's launcher on it.
// The runner and @web/test-runner-commands (sendKeys, sendMouse) call this object as they would that launcher.
import { webdriverLauncher } from '@web/test-runner-webdriver';
import { startWebKitDriver, webkitCapabilities } from './browsers.mjs';

export class WebKitLauncher {
  name = 'WebKit';
  type = 'webdriver';
  #driver;
  #launcher;

  async initialize(config, testFiles) {
    this.#driver = await startWebKitDriver();
    this.#launcher = webdriverLauncher({
      capabilities: webkitCapabilities(),
      hostname: '127.0.0.1',
      port: this.#driver.port,
      logLevel: 'error',
    });
    await this.#launcher.initialize(config, testFiles);
  }

  async stop() {
    await this.#launcher?.stop();
    await this.#driver?.stop();
  }

  startSession(id, url) {
    return this.#launcher.startSession(id, url);
  }

  isActive(id) {
    return this.#launcher.isActive(id);
  }

  getBrowserUrl(id) {
    return this.#launcher.getBrowserUrl(id);
  }

  stopSession(id) {
    return this.#launcher.stopSession(id);
  }

  startDebugSession(id, url) {
    return this.#launcher.startDebugSession(id, url);
  }

  sendKeys(id, keys) {
    return this.#launcher.sendKeys(id, keys);
  }

  sendMouseMove(id, x, y) {
    return this.#launcher.sendMouseMove(id, x, y);
  }

  sendMouseClick(id, x, y, button) {
    return this.#launcher.sendMouseClick(id, x, y, button);
  }

  sendMouseDown(id, button) {
    return this.#launcher.sendMouseDown(id, button);
  }

  sendMouseUp(id, button) {
    return this.#launcher.sendMouseUp(id, button);
  }

  resetMouse(id) {
    return this.#launcher.resetMouse(id);
  }

  takeScreenshot(id, locator) {
    return this.#launcher.takeScreenshot(id, locator);
  }
}
