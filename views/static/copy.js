// Copy buttons of the platform's "Integrate" section: each button copies the text of the element its data-copy names.
// The buttons start hidden and appear only where the Clipboard API exists, so a page without script loses nothing.
'use strict';
(function () {
  if (!navigator.clipboard) return;
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      try {
        await navigator.clipboard.writeText(source.textContent);
        button.textContent = button.dataset.copied;
        setTimeout(() => {
          button.textContent = label;
        }, 2000);
      } catch {
        // Copy refused (no permission): the text stays selectable in the page.
      }
    });
  }
})();
