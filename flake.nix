{
  description = "pattern-analysis-service: development shell (Node 24 LTS, Chromium, Prometheus)";

  # nodejs_24 is in nixos-25.05 and later, not in 24.11 (which is also past its support).
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in {
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [
            pkgs.nodejs_24     # the recommended line (README); the CI machines' Node 20 is the floor
            pkgs.chromium      # docs tests drive it through playwright-core
            pkgs.prometheus    # promtool check metrics, and a real scraper
            pkgs.redis         # shared state for several replicas (SVC_REDIS_URL) in the tests
            pkgs.postgresql    # the runs store the replicas share (SVC_DATABASE_URL): ephemeral clusters in the tests
            pkgs.git
          ];
          shellHook = ''
            export PATH="$PWD/node_modules/.bin:$PATH"
            echo "pattern-analysis-service dev shell: node $(node --version)"
          '';
        };
      });
    };
}
