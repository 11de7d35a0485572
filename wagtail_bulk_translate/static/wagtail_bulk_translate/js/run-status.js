/**
 * bt-run-status: keeps a run page up to date by polling its JSON status endpoint.
 *
 * Polls every `interval` milliseconds while the run is active and the tab is visible; stops for
 * good once the run is finished. With a `report` URL (the run page), the final report is then
 * fetched and swapped in place of the controller's element (same-origin HTML the server rendered
 * and escaped; its replacement starts finished, so it does not poll). Everything else inserted
 * comes from JSON and goes in with textContent, never innerHTML.
 *
 * Markup hooks (inside the controller's element):
 *   [data-bt-progress] / [data-bt-progress-bar]   the progress bar
 *   [data-bt-status]                              the status tag (data-bt-run-status = raw value)
 *   [data-bt-live], [data-bt-status-text]         the polite live region (kept in place) and its status
 *   [data-bt-count="<unit status>"]               unit counts
 *   [data-bt-outcome="<key>"]                     held for review, skips by why
 *   [data-bt-if-count="<unit status>"]            shown only while that count is not 0
 *   [data-bt-done], [data-bt-total]               units done (ran) and in all
 *   [data-bt-eta], [data-bt-billed]               ETA and characters billed
 *   [data-bt-breakdown="by_locale|by_model"]      tables whose <tbody> is rebuilt
 *   [data-bt-action="<name>"]                     shown only when the action is allowed
 *   [data-bt-counting]                            shown while the scope is being enumerated
 *   [data-bt-no-worker], [data-bt-task-failing], [data-bt-finished-notice] notices shown when relevant (the finished
 *                                                 notice only if the final report cannot load)
 */
(() => {
  const STATUSES = ['pending', 'running', 'succeeded', 'skipped', 'failed', 'cancelled'];

  class RunStatusController extends window.StimulusModule.Controller {
    static values = {
      url: String,
      report: String,
      interval: { type: Number, default: 3000 },
      finished: { type: Boolean, default: false },
    };

    connect() {
      this.onVisibility = () => (document.hidden ? this.stop() : this.start());
      document.addEventListener('visibilitychange', this.onVisibility);
      if (!this.finishedValue) this.start();
    }

    disconnect() {
      document.removeEventListener('visibilitychange', this.onVisibility);
      this.stop();
    }

    start() {
      if (this.finishedValue || this.timer || document.hidden) return;
      this.timer = window.setInterval(() => this.poll(), this.intervalValue);
      this.poll();
    }

    stop() {
      window.clearInterval(this.timer);
      this.timer = null;
    }

    async poll() {
      if (this.busy) return;
      this.busy = true;
      try {
        const response = await fetch(this.urlValue, {
          headers: { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
          credentials: 'same-origin',
        });
        if (!response.ok) {
          this.stop(); // signed out or permission removed: polling would only fail again
          return;
        }
        this.render(await response.json());
      } catch (error) {
        // A network hiccup: the next tick tries again.
      } finally {
        this.busy = false;
      }
    }

    render(data) {
      this.renderProgress(data);
      Object.entries(data.outcomes || {}).forEach(([key, count]) => {
        this.all(`[data-bt-outcome="${key}"]`).forEach((el) => {
          el.textContent = count.toLocaleString();
        });
        this.all(`[data-bt-if-outcome="${key}"]`).forEach((el) => {
          el.hidden = !count;
        });
      });
      STATUSES.forEach((status) => {
        this.all(`[data-bt-count="${status}"]`).forEach((el) => {
          el.textContent = (data.units[status] || 0).toLocaleString();
        });
        this.all(`[data-bt-if-count="${status}"]`).forEach((el) => {
          el.hidden = !data.units[status];
        });
      });
      this.setText('[data-bt-status-text]', data.status_label);
      this.all('[data-bt-status]').forEach((el) => {
        el.textContent = data.status_label;
        el.dataset.btRunStatus = data.status;
        el.classList.toggle('w-status--primary', !data.is_finished);
      });
      this.all('[data-bt-counting]').forEach((el) => {
        el.hidden = data.enumeration_done;
      });
      this.setText('[data-bt-eta]', data.eta_label || '—');
      this.setText('[data-bt-billed]', data.billed_characters.toLocaleString());
      this.renderBreakdown('by_locale', data.by_locale, (key) => key);
      this.renderBreakdown('by_model', data.by_model, (key) => data.model_names[key] || key);
      this.all('[data-bt-action]').forEach((el) => {
        el.hidden = !data.actions.includes(el.dataset.btAction);
      });
      this.all('[data-bt-no-worker]').forEach((el) => {
        el.hidden = !data.no_worker;
      });
      this.all('[data-bt-task-failing]').forEach((el) => {
        el.hidden = !data.task_failing;
        el.querySelectorAll('[data-bt-task-failing-text]').forEach((text) => {
          text.textContent = data.task_failing;
        });
      });
      if (data.is_finished) {
        this.finishedValue = true;
        this.stop();
        this.showFinalReport();
      }
    }

    async showFinalReport() {
      try {
        if (!this.reportValue) throw new Error('no report to load');
        const response = await fetch(this.reportValue, {
          headers: { Accept: 'text/html' },
          credentials: 'same-origin',
        });
        if (!response.ok) throw new Error(`report answered ${response.status}`);
        const html = new DOMParser().parseFromString(await response.text(), 'text/html');
        const report = html.querySelector(`[data-bt-run="${this.element.dataset.btRun}"]`);
        if (!report) throw new Error('no report in the page');
        const fresh = document.importNode(report, true);
        this.keepLiveRegion(fresh);
        this.element.replaceWith(fresh);
      } catch (error) {
        this.all('[data-bt-finished-notice]').forEach((el) => {
          el.hidden = false;
        });
      }
    }

    // A live region a screen reader has seen must be updated, not replaced, for its change to
    // be announced: the report's copy gives its content to the region already in the page.
    keepLiveRegion(fresh) {
      const live = this.element.querySelector('[data-bt-live]');
      const slot = fresh.querySelector('[data-bt-live]');
      if (!live || !slot) return;
      live.replaceChildren(...slot.childNodes);
      slot.replaceWith(live);
    }

    renderProgress(data) {
      this.all('[data-bt-progress]').forEach((el) => {
        el.setAttribute('aria-valuenow', data.percent);
      });
      this.all('[data-bt-progress-bar]').forEach((el) => {
        el.style.width = `${data.percent}%`;
        el.textContent = `${data.percent}%`;
      });
      this.setText('[data-bt-done]', data.done.toLocaleString());
      this.setText('[data-bt-total]', data.total.toLocaleString());
    }

    renderBreakdown(name, table, label) {
      const body = this.element.querySelector(`[data-bt-breakdown="${name}"] tbody`);
      if (!body) return;
      const rows = Object.entries(table).map(([key, counts]) => {
        const row = document.createElement('tr');
        [label(key), ...STATUSES.map((s) => (counts[s] || 0).toLocaleString())].forEach((v) => {
          const cell = document.createElement('td');
          cell.textContent = v;
          row.appendChild(cell);
        });
        return row;
      });
      body.replaceChildren(...rows);
    }

    setText(selector, text) {
      this.all(selector).forEach((el) => {
        el.textContent = text;
      });
    }

    all(selector) {
      return this.element.querySelectorAll(selector);
    }
  }

  window.wagtail.app.register('bt-run-status', RunStatusController);
})();
