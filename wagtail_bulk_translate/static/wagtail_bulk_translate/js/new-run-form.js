// The new-run form never offers the source locale as a target: its checkbox is hidden (and
// unticked) while that locale is the source. Without JavaScript the form refuses it instead.
(() => {
  const form = document.querySelector("[data-bt-new-run-form]");
  const source = form && form.querySelector("select[name=source_locale]");
  if (!source) return;
  const hideSourceTarget = () => {
    form.querySelectorAll("input[name=target_locales]").forEach((box) => {
      const isSource = box.value === source.value;
      const row = box.closest("label")?.parentElement || box.parentElement;
      row.hidden = isSource;
      if (isSource) box.checked = false;
    });
  };
  source.addEventListener("change", hideSourceTarget);
  hideSourceTarget();
})();
