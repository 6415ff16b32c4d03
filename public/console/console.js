// Behaviour every console page shares, for pages that work without it too: copy buttons, and a
// confirmation before forms that delete or revoke. Loaded as a module: no inline script anywhere.

/** Copies the text of the element named by data-copy into the clipboard. */
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = 'Copied';
    } catch {
      // No clipboard (an insecure origin): select the text so the keyboard can copy it.
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
  });
}

/** Forms marked data-confirm ask first (delete, revoke, rotate). */
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}
