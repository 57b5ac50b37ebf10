//! `markerspec-gpu-probe`: the isolated child that [`markerspec_gpu::Detector::detect`] runs.
//! It loads the driver libraries, prints one JSON report line, and exits.

fn main() -> std::process::ExitCode {
    markerspec_gpu::probe_main()
}
