// For a page that embeds the lab: sizes every lab iframe to its content.
//   <iframe src="https://YOU.github.io/schedlab/embed.html?mode=cpu&algorithm=rr" style="width:100%;border:0" loading="lazy"></iframe>
//   <script src="https://YOU.github.io/schedlab/embed-host.js"></script>
// (or paste this function into the page). embed.html posts {type: 'schedlab:height', height} whenever its height
// changes; only frames that are on this page and came from the lab's page are resized.
window.addEventListener('message', function (event) {
  var data = event.data
  if (!data || data.type !== 'schedlab:height' || typeof data.height !== 'number') return
  var frames = document.getElementsByTagName('iframe')
  for (var i = 0; i < frames.length; i++) {
    if (frames[i].contentWindow === event.source) frames[i].style.height = Math.min(data.height, 20000) + 'px'
  }
})
